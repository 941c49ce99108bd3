package io.nvmf4j.cli.mount;

import io.nvmf4j.cli.host.CommandFailure;
import io.nvmf4j.cli.host.ConnectFlags;
import io.nvmf4j.cli.host.Connections;
import io.nvmf4j.cli.mount.ublk.DeviceInfo;
import io.nvmf4j.cli.mount.ublk.NamespaceHandler;
import io.nvmf4j.cli.mount.ublk.UblkControl;
import io.nvmf4j.cli.mount.ublk.UblkDevice;
import io.nvmf4j.cli.mount.ublk.UblkException;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * {@code nvmf4j mount --ublk}: each remote namespace as a block device {@code /dev/ublkbN} (Linux's ublk_drv), what
 * {@code nvme connect} gives as {@code /dev/nvmeXnY}: one ublk queue per NVMe I/O queue, the NVMe queue depth (at
 * most {@link #MAX_DEPTH}), the namespace's block size, requests up to MDTS (at most {@link #MAX_IO_BYTES}), Flush,
 * FUA, discard and write zeroes passed through. Runs until SIGINT or SIGTERM, then removes the devices.
 *
 * <p>The devices are added with user recovery ({@code UBLK_F_USER_RECOVERY | UBLK_F_USER_RECOVERY_REISSUE}, as
 * ublksrv's {@code ublk add -r 1 -i 1}): if this process dies without removing them, the kernel holds their I/O
 * (the file system above sees a slow disk, not an error) until {@code mount --ublk --recover ID} serves them again,
 * reissuing what the dead process had taken and not answered, or {@code ublk del} removes them. The namespace a
 * device serves is kept in its {@code ublksrv_flags}, so that a recovery finds it again.
 */
final class UblkMount {
    /** Per-tag buffers are registered memory: depth x largest request per queue. */
    static final int MAX_DEPTH = 128;
    static final int MAX_IO_BYTES = 256 * 1024;

    private UblkMount() {
    }

    /** {@code --fs DIR [--fs-type T] [--mkfs]}: the first device's file system, mounted on {@code directory}. */
    record Filesystem(Path directory, String type, boolean mkfs) {
    }

    /**
     * Connects, makes (or, with {@code recover}, serves again) the devices, mounts {@code fs} when given, and serves
     * until SIGINT or SIGTERM; {@code beforeDevices} may refuse the controller first (--mkfs over a file system).
     */
    static int run(ConnectFlags fabric, List<Integer> recover, Filesystem fs, Consumer<NvmeController> beforeDevices,
            PrintWriter out) throws UblkException {
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
        List<LoopFilesystem> mounted = new ArrayList<>();
        List<Path> records = new ArrayList<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Runnable removeAll = () -> {
            records.forEach(MountRecord::delete);
            for (LoopFilesystem m : mounted) {
                try {
                    m.close();
                } catch (RuntimeException e) {
                    // removing the device under a mounted file system would lose what its cache holds: leave
                    // the devices to the kernel, which holds their I/O until a recovery or ublk del
                    System.err.println("nvmf4j: umount " + m.directory() + ": " + e.getMessage() + "; the devices "
                            + "stay, their I/O waiting: nvmf4j mount --ublk --recover ID (same flags) serves them "
                            + "again");
                    System.err.flush();
                    Runtime.getRuntime().halt(1);
                }
            }
            for (UblkDevice d : devices.reversed()) {
                if (Boolean.getBoolean("nvmf4j.ublk.counters")) {
                    System.err.print(d.counters()); // where the queues' time went (docs/ARCHITECTURE.md, threads)
                }
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
            StringJoiner made = new StringJoiner(", ");
            boolean recoverable = true;
            if (recover.isEmpty()) {
                beforeDevices.accept(controller);
                recoverable = add(control, controller, devices, made);
            } else {
                for (int id : recover) {
                    UblkDevice d = UblkRecovery.recover(control, controller, id, MAX_IO_BYTES);
                    devices.add(d);
                    made.add(d.blockDevice() + " recovered");
                }
            }
            Thread hook = new Thread(() -> {
                removeAll.run();
                stopped.countDown();
                Runtime.getRuntime().halt(0);
            }, "nvmf4j-ublk-remove");
            Runtime.getRuntime().addShutdownHook(hook);
            UblkDevice first = devices.getFirst();
            if (fs != null) {
                String device = first.blockDevice().toString();
                mounted.add(recover.isEmpty() ? LoopFilesystem.onDevice(device, fs.directory(), fs.type(), fs.mkfs())
                        : LoopFilesystem.adoptOrMount(device, fs.directory(), fs.type()));
                made.add(fs.type() + " of " + first.blockDevice() + " on " + fs.directory());
            }
            out.println(recoverable
                    ? "nvmf4j: should this process die, their I/O waits for: nvmf4j mount --ublk --recover ID "
                            + "(same flags), or nvmf4j ublk del -n ID"
                    : "nvmf4j: this kernel's ublk_drv has no user recovery: should this process die, their I/O "
                            + "fails until nvmf4j ublk del -n ID");
            // the status line last: mount --daemon's parent shows the last "nvmf4j: " line once a record appears
            out.println("nvmf4j: " + controller.options().subsystemNqn().value() + " at " + fabric.endpoint() + ": "
                    + made + "; " + first.queueCount() + " queue(s) of " + first.queueDepth()
                    + "; Ctrl-C, SIGTERM or nvmf4j umount " + (fs != null ? fs.directory() : first.blockDevice())
                    + " removes them");
            out.flush();
            writeRecords(devices, fs, records);
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

    /**
     * What {@code nvmf4j umount} finds this process by: a {@link MountRecord} under each device node and the --fs
     * directory, plus the name a {@code mount --daemon} parent waits for ({@link Daemon#READY_KEY}), which it
     * removes itself. {@code written} collects the ones to delete when the devices go.
     */
    private static void writeRecords(List<UblkDevice> devices, Filesystem fs, List<Path> written) {
        long pid = ProcessHandle.current().pid();
        String fsDir = fs == null ? null : fs.directory().toString();
        String firstDevice = devices.getFirst().blockDevice().toString();
        try {
            for (UblkDevice d : devices) {
                new MountRecord(pid, d.blockDevice(), fsDir, d.blockDevice().toString()).write();
                written.add(d.blockDevice());
            }
            if (fs != null) {
                new MountRecord(pid, fs.directory(), fsDir, firstDevice).write();
                written.add(fs.directory());
            }
            String key = System.getenv(Daemon.READY_KEY);
            if (key != null && !written.contains(Path.of(key))) {
                new MountRecord(pid, Path.of(key), null, null).write();
            }
        } catch (java.io.IOException e) {
            // the devices serve anyway; only umount by name cannot find them
            System.err.println("nvmf4j: cannot record the mount for nvmf4j umount (" + e.getMessage()
                    + "): stop it with SIGTERM");
        }
    }

    /** A device per namespace; whether the kernel took user recovery for them. */
    private static boolean add(UblkControl control, NvmeController controller, List<UblkDevice> devices,
            StringJoiner made) throws UblkException {
        int queues = controller.ioQueueCount();
        int depth = Math.min(controller.ioQueueSize(), MAX_DEPTH);
        int maxIo = (int) Math.min(controller.maxTransferBytes() > 0 ? controller.maxTransferBytes()
                : MAX_IO_BYTES, MAX_IO_BYTES);
        boolean recoverable = true;
        for (Namespace ns : controller.namespaces()) {
            NamespaceHandler handler = new NamespaceHandler(controller, ns, queues);
            DeviceInfo wanted = new DeviceInfo(queues, depth, 0, maxIo, DeviceInfo.ANY_ID, 0,
                    DeviceInfo.F_CMD_IOCTL_ENCODE | DeviceInfo.F_USER_RECOVERY | DeviceInfo.F_USER_RECOVERY_REISSUE,
                    UblkRecovery.serverFlags(ns.nsid()));
            UblkDevice d = UblkDevice.start(control, wanted, handler.params(maxIo), handler);
            devices.add(d);
            recoverable &= d.recoverable();
            made.add(d.blockDevice() + " (namespace " + ns.nsid() + ", " + Sizes.human(ns.capacityBytes())
                    + ", " + ns.blockSize() + "-byte blocks)");
        }
        if (devices.isEmpty()) {
            throw new CommandFailure("mount: " + controller.options().subsystemNqn().value()
                    + " has no namespace to give as a block device");
        }
        return recoverable;
    }
}
