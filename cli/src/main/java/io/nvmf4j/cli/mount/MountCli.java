package io.nvmf4j.cli.mount;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.CommandFailure;
import io.nvmf4j.cli.host.CommandLogging;
import io.nvmf4j.cli.host.ConnectFlags;
import io.nvmf4j.cli.host.Connections;
import io.nvmf4j.cli.host.UsageProblem;
import io.nvmf4j.cli.mount.ublk.UblkControl;
import io.nvmf4j.initiator.MultipathController;
import io.nvmf4j.initiator.NamespaceIo;
import io.nvmf4j.initiator.NvmeController;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code nvmf4j mount}: the remote namespaces as files {@code nvme0n<nsid>} in a FUSE directory, optionally with
 * a file system on a loop device over the first one.
 */
@Command(name = "mount", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false,
        description = {"Expose remote namespaces as local files nvme0n<nsid> through FUSE, optionally with a file "
                + "system mounted from the first (--fs). Runs until Ctrl-C, SIGTERM or 'nvmf4j umount MOUNTPOINT'.",
            "  nvmf4j mount -a 127.0.0.1 -n nqn.2026-12.io.nvmf4j:disk /mnt/nvme \\",
            "      --fs /mnt/data --mkfs",
            "--mkfs formats only a namespace that holds no file system, partition table or volume header (as blkid "
                + "finds them); --force formats over one.",
            "Several paths to one subsystem (multipath, ANA-aware, failover): -a takes a comma list, each entry ADDR "
                + "(on -s) or ADDR:PORT, e.g. -a 10.0.0.1:4420,10.0.0.2:4420 (nvme-cli connects once per path and "
                + "the kernel joins them; here one command names them all)."})
public final class MountCli implements Callable<Integer> {

    @Mixin
    ConnectFlags fabric;

    @Parameters(index = "0", paramLabel = "MOUNTPOINT", arity = "0..1",
            description = "An existing empty directory for the files (with files: -o nonempty); none with --ublk.")
    Path mountpoint;

    @Option(names = "--ublk", description = "Give each namespace as a block device /dev/ublkbN (Linux ublk_drv, "
            + "root) instead of files in a FUSE directory: mkfs, mount, fstrim and blkid act on it directly. The "
            + "default when no MOUNTPOINT is given and ublk_drv is loaded.")
    boolean ublk;

    @Option(names = "--recover", paramLabel = "ID", description = "With --ublk: serve again /dev/ublkbID, whose "
            + "mount process died (kill -9, a crash): its I/O waited meanwhile and now goes on (ublk's user "
            + "recovery; repeat for each device). Takes the same connection flags as the mount that made it.")
    java.util.List<Integer> recover = java.util.List.of();

    @Option(names = "--fs", paramLabel = "DIR",
            description = "Also mount the first namespace's file system on DIR (with --ublk its block device; "
                    + "with files, through a loop device on its file).")
    Path fsDirectory;

    @Option(names = "--fs-type", paramLabel = "TYPE", defaultValue = "ext4",
            description = "File system type for --fs (default: ${DEFAULT-VALUE}).")
    String fsType = "ext4";

    @Option(names = "--mkfs", description = "Format the namespace with --fs-type first (destroys its contents); "
            + "refused when it already holds a file system, unless --force.")
    boolean mkfs;

    @Option(names = {"-f", "--force"}, description = "With --mkfs: format even a namespace that already holds a "
            + "file system, partition table or volume header (as mkfs -F).")
    boolean force;

    @Option(names = "--daemon", description = "Detach: serve in the background once the mount (or, with --ublk, "
            + "the devices) is ready; 'nvmf4j umount' stops it.")
    boolean daemon;

    @Option(names = {"-o", "--options"}, split = ",", paramLabel = "OPT",
            description = "Mount options, as mount(8) takes them; nonempty: mount over a directory that has files "
                    + "(they are hidden until the unmount).")
    java.util.List<String> options = java.util.List.of();

    @Option(names = {"-v", "--verbose"}, description = "Log connection events; on failure, the stack trace.")
    boolean verbose;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        CommandLogging.configure(verbose);
        if (!recover.isEmpty() && !ublk) {
            throw new UsageProblem("mount: --recover serves a ublk device again; give --ublk");
        }
        if (mkfs && fsDirectory == null) {
            throw new UsageProblem("mount: --mkfs formats the file system of --fs DIR; give --fs");
        }
        if (force && !mkfs) {
            throw new UsageProblem("mount: --force only lets --mkfs format over an existing file system; give --mkfs");
        }
        Path fsDir = fsDirectory == null ? null : fsDirectory.toAbsolutePath().normalize();
        if (fsDir != null && !Files.isDirectory(fsDir)) {
            throw new UsageProblem("mount: --fs " + fsDirectory + " is not a directory");
        }
        boolean blockDevices = ublk;
        if (!ublk && mountpoint == null) {
            // as nvme connect gives block devices: without a directory for files, ublk when the kernel has it
            if (!Files.exists(Path.of(UblkControl.CONTROL_DEVICE))) {
                throw new UsageProblem("mount: give a MOUNTPOINT for the namespace files (FUSE); block devices "
                        + "(--ublk) need the ublk_drv module, which this kernel has not loaded (modprobe ublk_drv)");
            }
            spec.commandLine().getOut().println("nvmf4j: block devices through ublk_drv, as no MOUNTPOINT was "
                    + "given (a MOUNTPOINT gives the namespaces as files through FUSE)");
            blockDevices = true;
        }
        if (blockDevices) {
            if (mountpoint != null || !options.isEmpty()) {
                throw new UsageProblem("mount: --ublk makes block devices and takes no MOUNTPOINT or -o: "
                        + "--fs DIR mounts the first one's file system");
            }
            if (mkfs && !recover.isEmpty()) {
                throw new UsageProblem("mount: --recover serves a device whose file system may be in use; it "
                        + "takes no --mkfs (--fs DIR takes over the file system mounted on DIR)");
            }
            UblkMount.Filesystem fs = fsDir == null ? null : new UblkMount.Filesystem(fsDir, fsType, mkfs);
            if (daemon) {
                // the background copy announces itself under --fs DIR, or under a name made for this start
                return Daemon.detach(fsDir != null ? fsDir : Daemon.ublkKey(), spec.commandLine().getOut());
            }
            try {
                return UblkMount.run(fabric, recover, fs,
                        c -> refuseToFormatOver(c.namespaces(), c), spec.commandLine().getOut());
            } catch (io.nvmf4j.cli.mount.ublk.UblkException e) {
                throw new CommandFailure("mount: " + e.getMessage(), e);
            }
        }
        Path mp = mountpoint.toAbsolutePath().normalize();
        if (!Files.isDirectory(mp)) {
            throw new UsageProblem("mount: " + mountpoint + " is not a directory");
        }
        for (String o : options) {
            if (!o.equals("nonempty")) {
                throw new UsageProblem("mount: unknown mount option '" + o + "' (nvmf4j takes -o nonempty)");
            }
        }
        // Like fusermount before libfuse 3: a directory with files is refused unless -o nonempty, so the files
        // are not hidden under the mount by a typo in the path.
        if (!options.contains("nonempty") && !isEmpty(mp)) {
            throw new UsageProblem("mount: " + mountpoint + " is not empty; give -o nonempty to mount over its files");
        }
        MountRecord.read(mp).filter(r -> ProcessHandle.of(r.pid()).map(ProcessHandle::isAlive).orElse(false))
                .ifPresent(r -> {
                    throw new CommandFailure("mount: " + mp + " is already served by nvmf4j (pid " + r.pid()
                            + "); 'nvmf4j umount " + mp + "' first");
                });
        PrintWriter out = spec.commandLine().getOut();
        if (daemon) {
            return Daemon.detach(mp, out);
        }
        java.util.List<java.net.InetSocketAddress> paths = fabric.pathAddresses();
        MountSession session;
        NvmeController controller;
        if (paths.size() > 1) {
            // several paths (-a A,B or -a A:P1,A:P2): one multipath handle, failover between them
            MultipathController multipath = Connections.connectMultipath(fabric, paths, b -> b);
            controller = multipath.paths().getFirst();
            try {
                refuseToFormatOver(multipath.namespaces(), controller);
                session = MountSession.open(multipath, mp, out);
            } catch (RuntimeException e) {
                multipath.close();
                throw e;
            }
        } else {
            controller = Connections.connect(fabric, b -> b);
            try {
                refuseToFormatOver(controller.namespaces(), controller);
                session = MountSession.open(controller, mp, out);
            } catch (RuntimeException e) {
                controller.close();
                throw e;
            }
        }
        // SIGINT/SIGTERM: unmount cleanly, then exit 0 (1 if a step failed) rather than the JVM's 128+signal:
        // for a mount a requested stop that succeeded is a success.
        Thread hook = new Thread(() -> {
            session.close();
            Runtime.getRuntime().halt(session.closedCleanly() ? 0 : 1);
        }, "nvmf4j-umount");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            if (fsDir != null) {
                session.attachFilesystem(fsDir, fsType, mkfs);
            }
            LoopFilesystem loop = session.loop();
            // The status line first: --daemon's parent takes it from the log once the record appears.
            out.println(statusLine(controller, session, mp));
            out.flush();
            new MountRecord(ProcessHandle.current().pid(), mp, fsDir == null ? null : fsDir.toString(),
                    loop == null ? null : loop.device()).write();
            session.awaitEnd();
            session.close();
            if (!session.closedCleanly()) {
                return 1;
            }
        } catch (RuntimeException | IOException e) {
            session.close();
            throw e;
        } finally {
            session.close();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or ran: it closed the session
            }
        }
        return 0;
    }

    /**
     * With --mkfs and without --force: looks at the start of the namespace the file system goes on (the first) for
     * what blkid would find there, and refuses to format over it. mkfs.ext4 asks before it does; a mount that
     * re-runs its command line must not silently wipe the files it wrote the first time. Checked before the FUSE
     * mount and the loop device, so a refusal leaves nothing behind.
     */
    private void refuseToFormatOver(List<? extends NamespaceIo> namespaces, NvmeController controller) {
        if (!mkfs || force || namespaces.isEmpty()) {
            return;
        }
        NamespaceIo ns = namespaces.getFirst();
        byte[] head = readHead(ns, controller);
        FilesystemSignatures.find(head, (int) ns.blockSize()).ifPresent(found -> {
            throw new CommandFailure("mount: namespace " + ns.nsid() + " of "
                    + controller.options().subsystemNqn().value() + " already holds " + found + "; --mkfs would "
                    + "destroy it: leave out --mkfs to mount it as it is, or add --force to format it anyway");
        });
    }

    /** The first {@link FilesystemSignatures#PROBE_BYTES} of {@code ns} (all of it when smaller). */
    private static byte[] readHead(NamespaceIo ns, NvmeController controller) {
        long blockSize = ns.blockSize();
        long blocks = Math.min(ns.capacityBytes() / blockSize,
                (FilesystemSignatures.PROBE_BYTES + blockSize - 1) / blockSize);
        if (blocks == 0) {
            return new byte[0];
        }
        byte[] head = new byte[Math.toIntExact(blocks * blockSize)];
        long boundMillis = controller.options().commandTimeout().toMillis() + 5_000;
        try {
            ns.readAsync(0, blocks, MemorySegment.ofArray(head)).get(boundMillis, TimeUnit.MILLISECONDS);
            return head;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new CommandFailure("mount: cannot read namespace " + ns.nsid() + " to check it holds no file "
                    + "system before --mkfs: " + cause.getMessage(), cause);
        } catch (TimeoutException e) {
            throw new CommandFailure("mount: reading namespace " + ns.nsid() + " to check it holds no file system "
                    + "before --mkfs took more than " + boundMillis + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailure("mount: interrupted while checking namespace " + ns.nsid() + " before --mkfs",
                    e);
        }
    }

    private String statusLine(NvmeController controller, MountSession session, Path mp) {
        StringJoiner files = new StringJoiner(", ");
        for (NamespaceFile f : session.files()) {
            files.add(f.name() + " (" + Sizes.human(f.size()) + ", " + f.blockSize() + "-byte blocks)");
        }
        String line = "nvmf4j: " + controller.options().subsystemNqn().value() + " at " + fabric.endpoint()
                + " on " + mp + ": " + files;
        LoopFilesystem loop = session.loop();
        if (loop != null) {
            line += "; " + fsType + " on " + loop.device() + " mounted on " + loop.directory();
        }
        return line + "; Ctrl-C or 'nvmf4j umount " + mp + "' unmounts";
    }

    /** The arguments this process was started with, without --daemon (for the background copy). */
    static List<String> relaunchCommand() {
        ProcessHandle.Info info = ProcessHandle.current().info();
        List<String> cmd = new ArrayList<>();
        cmd.add(info.command().orElseThrow(() -> new CommandFailure("mount: --daemon cannot find the java binary")));
        for (String a : info.arguments().orElseThrow(
                () -> new CommandFailure("mount: --daemon cannot read this process's arguments"))) {
            if (!a.equals("--daemon")) {
                cmd.add(a);
            }
        }
        return cmd;
    }

    private static boolean isEmpty(Path dir) throws java.io.IOException {
        try (java.util.stream.Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }
}
