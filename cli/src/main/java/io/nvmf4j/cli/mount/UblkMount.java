package io.nvmf4j.cli.mount;

import io.nvmf4j.cli.host.CommandFailure;
import io.nvmf4j.cli.host.ConnectFlags;
import io.nvmf4j.cli.host.Connections;
import io.nvmf4j.cli.mount.ublk.NamespaceHandler;
import io.nvmf4j.cli.mount.ublk.UblkControl;
import io.nvmf4j.cli.mount.ublk.UblkDevice;
import io.nvmf4j.cli.mount.ublk.UblkException;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.CountDownLatch;

/**
 * {@code nvmf4j mount --ublk}: each remote namespace as a block device {@code /dev/ublkbN} (Linux's ublk_drv), what
 * {@code nvme connect} gives as {@code /dev/nvmeXnY}: one ublk queue per NVMe I/O queue, the NVMe queue depth (at
 * most {@link #MAX_DEPTH}), the namespace's block size, requests up to MDTS (at most {@link #MAX_IO_BYTES}), Flush,
 * FUA, discard and write zeroes passed through. Runs until SIGINT or SIGTERM, then removes the devices.
 */
final class UblkMount {
    /** Per-tag buffers are registered memory: depth x largest request per queue. */
    static final int MAX_DEPTH = 128;
    static final int MAX_IO_BYTES = 256 * 1024;

    private UblkMount() {
    }

    static int run(ConnectFlags fabric, PrintWriter out) throws UblkException {
        if (fabric.pathAddresses().size() > 1) {
            throw new CommandFailure("mount: --ublk takes one path (-a ADDR); multipath goes through the FUSE mount");
        }
        UblkControl control = UblkControl.open();
        NvmeController controller;
        try {
            controller = Connections.connect(fabric, b -> b);
        } catch (RuntimeException e) {
            control.close();
            throw e;
        }
        List<UblkDevice> devices = new ArrayList<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Runnable removeAll = () -> {
            for (UblkDevice d : devices.reversed()) {
                try {
                    d.close();
                } catch (UblkException e) {
                    System.err.println("nvmf4j: removing " + d.blockDevice() + ": " + e.getMessage());
                }
            }
            controller.close();
            control.close();
        };
        try {
            int queues = controller.ioQueueCount();
            int depth = Math.min(controller.ioQueueSize(), MAX_DEPTH);
            int maxIo = (int) Math.min(controller.maxTransferBytes() > 0 ? controller.maxTransferBytes()
                    : MAX_IO_BYTES, MAX_IO_BYTES);
            StringJoiner made = new StringJoiner(", ");
            for (Namespace ns : controller.namespaces()) {
                NamespaceHandler handler = new NamespaceHandler(controller, ns, queues);
                UblkDevice d = UblkDevice.start(control, queues, depth, maxIo, handler.params(maxIo), handler);
                devices.add(d);
                made.add(d.blockDevice() + " (namespace " + ns.nsid() + ", " + Sizes.human(ns.capacityBytes())
                        + ", " + ns.blockSize() + "-byte blocks)");
            }
            if (devices.isEmpty()) {
                throw new CommandFailure("mount: " + controller.options().subsystemNqn().value()
                        + " has no namespace to give as a block device");
            }
            Thread hook = new Thread(() -> {
                removeAll.run();
                stopped.countDown();
                Runtime.getRuntime().halt(0);
            }, "nvmf4j-ublk-remove");
            Runtime.getRuntime().addShutdownHook(hook);
            out.println("nvmf4j: " + controller.options().subsystemNqn().value() + " at " + fabric.endpoint() + ": "
                    + made + "; " + queues + " queue(s) of " + depth + "; Ctrl-C or SIGTERM removes them");
            out.flush();
            stopped.await();
            return 0;
        } catch (UblkException | RuntimeException e) {
            removeAll.run();
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            removeAll.run();
            return 1;
        }
    }
}
