package io.nvmf4j.cli.mount;

import io.nvmf4j.cli.host.CommandFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a system tool (losetup, mkfs, mount, umount) with a time bound; its output is kept for the message. */
final class ExternalCommand {

    record Result(int exitCode, String output) {
        String lastLine() {
            String t = output.strip();
            int nl = t.lastIndexOf('\n');
            return nl < 0 ? t : t.substring(nl + 1);
        }
    }

    private ExternalCommand() {
    }

    static Result run(long timeoutSeconds, List<String> command) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new CommandFailure("cannot run " + command.getFirst() + ": " + e.getMessage()
                    + " (install it: " + packageOf(command.getFirst()) + ")", e);
        }
        try {
            p.getOutputStream().close();
            // Tools here print little: reading after exit cannot fill the pipe and stall them.
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new CommandFailure(String.join(" ", command) + " did not finish within " + timeoutSeconds + " s");
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Result(p.exitValue(), out);
        } catch (IOException e) {
            throw new CommandFailure(String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new CommandFailure(String.join(" ", command) + " interrupted", e);
        }
    }

    /** Runs it and fails with its last output line unless it exits 0; returns the output. */
    static String check(long timeoutSeconds, List<String> command) {
        Result r = run(timeoutSeconds, command);
        if (r.exitCode() != 0) {
            throw new CommandFailure(String.join(" ", command) + " failed (exit " + r.exitCode() + "): "
                    + r.lastLine());
        }
        return r.output();
    }

    private static String packageOf(String tool) {
        return switch (tool) {
            case "losetup", "mount", "umount" -> "apt-get install mount";
            case "fusermount3" -> "apt-get install fuse3";
            default -> tool.startsWith("mkfs") || tool.equals("e2fsck") ? "apt-get install e2fsprogs"
                    : "apt-get install " + tool;
        };
    }
}
