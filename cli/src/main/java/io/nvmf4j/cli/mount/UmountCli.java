package io.nvmf4j.cli.mount;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.CommandFailure;
import io.nvmf4j.cli.mount.fuse.Libc;
import io.nvmf4j.uring.Errno;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code nvmf4j umount MOUNTPOINT}: asks the process serving it to unmount (SIGTERM: it unmounts the file system,
 * detaches the loop device, flushes, unmounts FUSE, disconnects) and waits for it. A FUSE mount whose process
 * is gone (killed) is unmounted directly. For {@code mount --ublk}, MOUNTPOINT is its --fs directory or one of its
 * {@code /dev/ublkbN}: the process unmounts the file system and removes its devices.
 */
@Command(name = "umount", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Unmount what 'nvmf4j mount' mounted on MOUNTPOINT, cleanly.",
            "For mount --ublk: its --fs directory or one of its /dev/ublkbN (the devices are removed)."})
public final class UmountCli implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "MOUNTPOINT")
    Path mountpoint;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "700",
            description = "How long to wait for the flush and unmount (default: ${DEFAULT-VALUE}, above the "
                    + "default ctrl-loss-tmo).")
    long timeoutSeconds = 700;

    @Option(names = {"-v", "--verbose"}, description = "On failure, the stack trace.")
    boolean verbose;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException, InterruptedException {
        Path mp = mountpoint.toAbsolutePath().normalize();
        PrintWriter out = spec.commandLine().getOut();
        Optional<ProcessHandle> server = MountRecord.read(mp).flatMap(r -> ProcessHandle.of(r.pid()))
                .filter(ProcessHandle::isAlive);
        if (server.isPresent()) {
            ProcessHandle h = server.get();
            h.destroy();
            try {
                h.onExit().get(timeoutSeconds, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new CommandFailure("umount: nvmf4j (pid " + h.pid() + ") did not finish unmounting " + mp
                        + " within " + timeoutSeconds + " s");
            } catch (java.util.concurrent.ExecutionException e) {
                throw new CommandFailure("umount: " + e.getMessage(), e);
            }
            out.println("nvmf4j: unmounted " + mp + " (pid " + h.pid() + " stopped)");
            return 0;
        }
        Optional<MountRecord> stale = MountRecord.read(mp);
        MountRecord.delete(mp);
        String ublkDevice = stale.map(MountRecord::loopDevice).filter(d -> d.startsWith("/dev/ublkb")).orElse(null);
        if (ublkDevice != null) {
            // a device whose server died holds its I/O for a recovery (UBLK_F_USER_RECOVERY): removing it is the
            // user's choice, not a side effect of umount
            String id = ublkDevice.substring("/dev/ublkb".length());
            throw new CommandFailure("umount: the nvmf4j process serving " + ublkDevice + " is gone; serve it again "
                    + "with nvmf4j mount --ublk --recover " + id + " (same flags), or remove it with nvmf4j ublk del -n "
                    + id);
        }
        if (!isFuseMount(mp)) {
            throw new CommandFailure("umount: " + mp + " is not an nvmf4j mount");
        }
        int errno = Libc.umount2(mp.toString(), 0);
        if (errno != 0) {
            throw new CommandFailure("umount: " + mp + (errno == Errno.EBUSY ? " is busy" : ": errno " + errno)
                    + " (its nvmf4j process is gone)");
        }
        out.println("nvmf4j: unmounted " + mp + " (its nvmf4j process was gone)");
        return 0;
    }

    /** /proc/self/mounts lists it as a fuse.nvmf4j mount (mount point field 2, type field 3; octal escapes). */
    static boolean isFuseMount(Path mp) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
            String[] f = line.split(" ");
            if (f.length > 2 && f[2].equals("fuse.nvmf4j") && unescape(f[1]).equals(mp.toString())) {
                return true;
            }
        }
        return false;
    }

    private static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length()) {
                b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
