package io.nvmf4j.cli.mount;

import io.nvmf4j.cli.host.CommandFailure;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code mount --daemon}: starts this same command again without {@code --daemon}, in its own session
 * ({@code setsid}: no controlling terminal, no SIGINT from the shell's Ctrl-C), output to a log file, and returns
 * once the copy reports the mount ready (its {@link MountRecord}) or has failed (its last line is the error).
 */
final class Daemon {

    /** Connecting, and formatting with --mkfs, come before "ready": a bound that mkfs of a large disk fits in. */
    private static final long READY_MINUTES = 15;

    private Daemon() {
    }

    /**
     * The environment variable through which a background {@code mount --ublk} without {@code --fs} learns the
     * name it announces itself under (it has no directory of its own, and its device number comes from the kernel).
     */
    static final String READY_KEY = "NVMF4J_MOUNT_READY_KEY";

    /** A name for one start of a background {@code mount --ublk} without {@code --fs}. */
    static Path ublkKey() {
        return Path.of("/nvmf4j-ublk-start-" + ProcessHandle.current().pid());
    }

    /**
     * Starts the background copy and waits until it has written the {@link MountRecord} of {@code mountpoint} (the
     * FUSE directory, the --fs directory, or {@link #ublkKey()}) with its own pid.
     */
    static int detach(Path mountpoint, PrintWriter out) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (new File("/usr/bin/setsid").canExecute()) {
            cmd.add("/usr/bin/setsid");
        }
        cmd.addAll(MountCli.relaunchCommand());
        Files.createDirectories(MountRecord.DIRECTORY);
        Path log = MountRecord.fileFor(mountpoint).resolveSibling(
                MountRecord.fileFor(mountpoint).getFileName().toString().replace(".properties", ".log"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(new File("/dev/null"));
        pb.environment().put(READY_KEY, mountpoint.toString());
        Process p = pb.start();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(READY_MINUTES);
        while (System.nanoTime() < deadline) {
            if (MountRecord.read(mountpoint).filter(r -> r.pid() == p.pid()).isPresent()) {
                if (mountpoint.equals(ublkKey())) {
                    MountRecord.delete(mountpoint); // only this wait needed it: the devices have their own
                }
                out.println(lastLine(log, "nvmf4j: ") + " [pid " + p.pid() + ", log " + log + "]");
                out.flush();
                return 0;
            }
            if (p.waitFor(100, TimeUnit.MILLISECONDS)) {
                String why = lastLine(log, "nvmf4j: ");
                throw new CommandFailure(why.startsWith("nvmf4j: ") ? why.substring("nvmf4j: ".length())
                        : "mount: the background process exited with " + p.exitValue() + " (log " + log + ")");
            }
        }
        p.destroy();
        throw new CommandFailure("mount: not ready within " + READY_MINUTES + " minutes; stopped it (log " + log + ")");
    }

    private static String lastLine(Path log, String prefix) throws IOException {
        String found = "";
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            if (line.startsWith(prefix)) {
                found = line;
            }
        }
        return found;
    }
}
