package io.nvmf4j.cli.mount;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What a failed test may leave behind, removed in its finally: a file system on DIR, loop devices backed by a
 * file under the FUSE mount point, the FUSE mount itself (a leaked one breaks later runs). Lazy unmounts, so a
 * dead FUSE server cannot make the cleanup hang.
 */
final class MountLeaks {

    private MountLeaks() {
    }

    static List<String> mountPoints() throws IOException {
        List<String> points = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
            points.add(line.split(" ")[1]);
        }
        return points;
    }

    static boolean isMounted(Path p) throws IOException {
        return mountPoints().contains(p.toAbsolutePath().toString());
    }

    /** Loop devices whose backing file lies under {@code dir}. */
    static List<String> loopDevicesUnder(Path dir) throws IOException, InterruptedException {
        List<String> devices = new ArrayList<>();
        for (String line : run("losetup", "-l", "-n", "-O", "NAME,BACK-FILE").split("\n")) {
            String[] f = line.trim().split("\\s+", 2);
            if (f.length == 2 && f[1].startsWith(dir.toAbsolutePath() + "/")) {
                devices.add(f[0]);
            }
        }
        return devices;
    }

    static void cleanUp(Path fuseMountpoint, Path fsDirectory) {
        try {
            if (fsDirectory != null && isMounted(fsDirectory)) {
                run("umount", "-l", fsDirectory.toString());
            }
            for (String dev : loopDevicesUnder(fuseMountpoint)) {
                run("losetup", "-d", dev);
            }
            if (isMounted(fuseMountpoint)) {
                run("umount", "-l", fuseMountpoint.toString());
            }
        } catch (IOException | InterruptedException e) {
            throw new AssertionError("cleanup of " + fuseMountpoint + " failed", e);
        }
    }

    static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " hung");
        }
        return out;
    }

    /** Runs a tool that must exist and succeed; returns its output. */
    static String check(String... command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new AssertionError(command[0] + " is not installed (.ci/run installs it)", e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(600, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " hung");
        }
        if (p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " exited " + p.exitValue() + ":\n" + out);
        }
        return out;
    }
}
