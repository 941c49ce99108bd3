package io.nvmf4j.cli.mount;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code nvmf4j ARGS} as a separate JVM on this test's class path (a target that can be killed with -9, a mount
 * whose FUSE server is not the JVM that reads its files), its merged output collected line by line.
 */
final class Child implements AutoCloseable {

    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final String name;

    private Child(String name, Process process) {
        this.name = name;
        this.process = process;
        Thread reader = Thread.ofPlatform().daemon(true).name("child-" + name).start(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (lines) {
                        lines.add(line);
                        lines.notifyAll();
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        reader.setUncaughtExceptionHandler((t, e) -> { });
    }

    static Child start(String name, List<String> nvmf4jArgs) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-Dnvmf4j.run.dir=" + MountRecord.DIRECTORY.getParent());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("io.nvmf4j.cli.Nvmf4j");
        cmd.addAll(nvmf4jArgs);
        return new Child(name, new ProcessBuilder(cmd).redirectErrorStream(true).start());
    }

    long pid() {
        return process.pid();
    }

    Process process() {
        return process;
    }

    String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    /** Waits until a line contains {@code text}; fails with the output if the process ends first or time runs out. */
    String awaitLine(String text, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        synchronized (lines) {
            while (true) {
                for (String l : lines) {
                    if (l.contains(text)) {
                        return l;
                    }
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0 || (!process.isAlive() && lines.stream().noneMatch(l -> l.contains(text)))) {
                    if (!process.isAlive()) {
                        Thread.sleep(200); // let the reader take the last lines
                    }
                    throw new AssertionError(name + ": no line with '" + text + "' (alive " + process.isAlive()
                            + "):\n" + output());
                }
                lines.wait(Math.min(left, 200));
            }
        }
    }

    int awaitExit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " still running after " + seconds + " s:\n" + output());
        }
        return process.exitValue();
    }

    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /**
     * SIGTERM, then SIGKILL if it does not end within a minute. Interrupted, it kills at once and keeps the
     * interrupt for the caller (a close() that throws InterruptedException would be suppressed by try-with-resources).
     */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(30, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
