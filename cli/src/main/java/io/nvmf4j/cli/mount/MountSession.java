package io.nvmf4j.cli.mount;

import io.nvmf4j.cli.host.CommandFailure;
import io.nvmf4j.cli.host.FailureReport;
import io.nvmf4j.cli.mount.fuse.FuseSession;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.MultipathController;
import io.nvmf4j.initiator.NamespaceIo;
import io.nvmf4j.initiator.NvmeController;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One mount, from connect to clean unmount: the controller, the FUSE session exposing its namespaces, the
 * optional loop device and file system. {@link #close} undoes them in reverse order and may be called from the
 * SIGINT/SIGTERM hook and from the main thread: only the first call works.
 */
final class MountSession implements AutoCloseable {

    private final NvmeController controller;
    private final NamespaceFileSystem fileSystem;
    private final FuseSession fuse;
    private final Path mountpoint;
    private final PrintWriter out;
    private LoopFilesystem loop;
    private boolean closed;
    private boolean clean = true;

    /** What {@link #close} disconnects: the controller, or the multipath handle over several. */
    private final AutoCloseable connection;

    private MountSession(NvmeController controller, AutoCloseable connection, NamespaceFileSystem fileSystem,
            FuseSession fuse, Path mountpoint, PrintWriter out) {
        this.controller = controller;
        this.connection = connection;
        this.fileSystem = fileSystem;
        this.fuse = fuse;
        this.mountpoint = mountpoint;
        this.out = out;
    }

    /** The file name of namespace {@code nsid}: the kernel's nvme&lt;instance&gt;n&lt;nsid&gt;, one controller per mount. */
    static String fileName(long nsid) {
        return "nvme0n" + nsid;
    }

    static MountSession open(NvmeController controller, Path mountpoint, PrintWriter out) {
        return open(controller, controller, List.copyOf(controller.namespaces()), mountpoint, out);
    }

    /** Over several paths: {@code connection} is closed at unmount; the first path gives the options and sizes. */
    static MountSession open(MultipathController multipath, Path mountpoint, PrintWriter out) {
        return open(multipath.paths().getFirst(), multipath, List.copyOf(multipath.namespaces()), mountpoint, out);
    }

    private static MountSession open(NvmeController controller, AutoCloseable connection,
            List<? extends NamespaceIo> namespaces, Path mountpoint, PrintWriter out) {
        int queueDepth = controller.ioQueueCount() * controller.ioQueueSize();
        // One slot per command the queues take, plus the read-modify-write scratch: enough not to allocate.
        ScratchPool pool = new ScratchPool(Math.max(64, queueDepth + 16));
        List<NamespaceFile> files = new ArrayList<>();
        long ino = 2;
        for (NamespaceIo ns : namespaces) {
            files.add(new NamespaceFile(fileName(ns.nsid()), ino++, ns, pool));
        }
        if (files.isEmpty()) {
            throw new CommandFailure("mount: the subsystem has no active namespace to expose");
        }
        NamespaceFileSystem fs = new NamespaceFileSystem(files, pool, queueDepth);
        if (!java.nio.file.Files.exists(Path.of("/dev/fuse"))) {
            throw new CommandFailure("mount: /dev/fuse is missing: this kernel has no FUSE (modprobe fuse)");
        }
        List<String> options = new ArrayList<>(List.of("fsname=nvmf4j", "subtype=nvmf4j", "default_permissions"));
        if ("root".equals(System.getProperty("user.name"))) {
            options.add("allow_other");
        }
        try {
            FuseSession fuse = FuseSession.mount(fs, mountpoint.toString(), options);
            return new MountSession(controller, connection, fs, fuse, mountpoint, out);
        } catch (IOException e) {
            throw new CommandFailure("mount: " + e.getMessage(), e);
        } catch (ExceptionInInitializerError | NoClassDefFoundError e) {
            // fuse_lowlevel_h opens libfuse3.so.3 in its static initialiser
            throw new CommandFailure("mount: cannot load libfuse3.so.3; install it (apt-get install fuse3)", e);
        }
    }

    List<NamespaceFile> files() {
        return fileSystem.files();
    }

    Path file(NamespaceFile f) {
        return mountpoint.resolve(f.name());
    }

    void attachFilesystem(Path directory, String type, boolean mkfs) {
        loop = LoopFilesystem.attach(file(files().getFirst()), directory, type, mkfs);
    }

    LoopFilesystem loop() {
        return loop;
    }

    /** Blocks until the FUSE loop ends: our own close, or someone unmounted the mount point. */
    void awaitEnd() throws InterruptedException {
        while (!fuse.awaitLoopEnd(1000)) {
            // the loop thread ends when the kernel drops the mount
        }
    }

    /** How long a command may still take to complete or fail: ctrl-loss-tmo plus one command timeout. */
    private long drainMillis() {
        ConnectOptions o = controller.options();
        Duration loss = o.ctrlLossTimeout().isNegative() ? Duration.ofHours(1) : o.ctrlLossTimeout();
        return loss.plus(o.commandTimeout()).plusSeconds(5).toMillis();
    }

    /**
     * Unmounts the file system and detaches the loop device, flushes every namespace, unmounts FUSE, disconnects.
     * Prints one summary line; what failed on the way is named in it.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<String> problems = new ArrayList<>();
        if (loop != null) {
            try {
                loop.close();
            } catch (RuntimeException e) {
                problems.add(e.getMessage());
            }
        }
        for (NamespaceFile f : files()) {
            try {
                f.flush().get(drainMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                Throwable c = e.getCause() != null ? e.getCause() : e;
                problems.add("flush of " + f.name() + " failed: " + FailureReport.oneLine("flush", c));
            }
        }
        String fuseProblem = fuse.unmount(drainMillis());
        if (fuseProblem != null) {
            problems.add(fuseProblem);
        }
        try {
            connection.close();
        } catch (Exception e) {
            problems.add("disconnect failed: " + e.getMessage());
        }
        if (fuseProblem == null) {
            fileSystem.pool().close(); // every reply was sent: no I/O holds a slot any more
        }
        MountRecord.delete(mountpoint);
        String summary = String.format("nvmf4j: unmounted %s (read %s, wrote %s, %d I/O errors)", mountpoint,
                Sizes.human(fileSystem.bytesRead.get()), Sizes.human(fileSystem.bytesWritten.get()),
                fileSystem.failures.get());
        out.println(problems.isEmpty() ? summary : summary + "; " + String.join("; ", problems));
        out.flush();
        clean = problems.isEmpty();
    }

    /** After {@link #close}: true when every step of the unmount succeeded. */
    synchronized boolean closedCleanly() {
        return closed && clean;
    }
}
