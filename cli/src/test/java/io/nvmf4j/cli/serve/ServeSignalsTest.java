package io.nvmf4j.cli.serve;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.QuickConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nvmf4j serve} as a process: SIGHUP reloads (it used to kill the daemon with exit 129), SIGTERM stops it
 * with 0, also while it starts, and a daemon whose parent ignores SIGHUP (nohup) says so and reloads through
 * {@code nvmf4j ctl reload}. Each daemon is started with SIGHUP, SIGINT and SIGTERM set explicitly (handled by
 * default, or HUP ignored), so the tests mean the same whether or not the test runner's own parent ignores SIGHUP.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ServeSignalsTest {

    private static final String NQN = "nqn.2026-12.io.nvmf4j:signals";

    @TempDir
    Path dir;

    private static void kill(String signal, long pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor());
    }

    /** Waits (at most 20 s) for {@code condition}; the process must stay alive meanwhile. */
    private static void await(Process p, Path log, BooleanSupplier condition, String what) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(p.isAlive(), () -> what + ": the daemon ended (" + p.exitValue() + "):\n" + read(log));
            assertTrue(System.nanoTime() < end, () -> "within 20 s: " + what + "\n" + read(log));
            Thread.sleep(20);
        }
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> java(String... args) {
        List<String> c = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "io.nvmf4j.cli.Nvmf4j"));
        c.addAll(List.of(args));
        return c;
    }

    /** A config of one RAM subsystem on {@code port} with {@code namespaces} 1 MiB namespaces. */
    private static String config(int port, int namespaces) throws Exception {
        QuickConfig q = QuickConfig.builder().nqn(NQN).listen("127.0.0.1:" + port);
        for (int i = 0; i < namespaces; i++) {
            q.ram("1M");
        }
        return q.build().config().toJson();
    }

    /**
     * {@code nvmf4j serve --config config} with SIGINT and SIGTERM at their default and SIGHUP at its default or
     * ignored (what nohup does), stderr to {@code log}.
     */
    private Process serve(Path config, Path log, boolean hupIgnored, String... more) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("env", "--default-signal=INT,TERM"
                + (hupIgnored ? "" : ",HUP")));
        if (hupIgnored) {
            cmd.add("--ignore-signal=HUP");
        }
        cmd.addAll(java("serve", "--config", config.toString(), "--provider", "softiwarp", "--poll-groups", "1",
                "--rpc-socket", dir.resolve("s.sock").toString()));
        cmd.addAll(List.of(more));
        return new ProcessBuilder(cmd).redirectError(log.toFile()).start();
    }

    /** A daemon started by {@link #start}: its listen port, config file, stderr log and process. */
    private record Daemon(int port, Path config, Path log, Process p) implements AutoCloseable {
        /** What the daemon wrote to stderr so far. */
        String stderr() {
            return read(log);
        }

        /** Rewrites the config with {@code namespaces} namespaces on the same port. */
        void namespaces(int namespaces) throws Exception {
            Files.writeString(config, ServeSignalsTest.config(port, namespaces));
        }

        @Override
        public void close() {
            p.destroyForcibly();
        }
    }

    /** {@link #serve} of a fresh config of one namespace on a free port. */
    private Daemon start(boolean hupIgnored, String... more) throws Exception {
        int port = TestDaemons.freePort();
        Path config = dir.resolve("config.json");
        Files.writeString(config, config(port, 1));
        Path log = dir.resolve("stderr.log");
        return new Daemon(port, config, log, serve(config, log, hupIgnored, more));
    }

    private static String firstLine(Process p) throws IOException {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
    }

    private static void stopWithZero(Process p, Path log) throws Exception {
        kill("TERM", p.pid());
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "SIGTERM ended the daemon within 20 s\n" + read(log));
        assertEquals(0, p.exitValue(), read(log));
    }

    /** {@code nvmf4j ctl ARGS} as its own process: exit status, then stdout and stderr. */
    private Object[] ctl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("ctl", "--socket", dir.resolve("s.sock").toString()));
        cmd.addAll(List.of(args));
        Process c = new ProcessBuilder(java(cmd.toArray(String[]::new))).redirectErrorStream(true).start();
        String out = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(c.waitFor(30, TimeUnit.SECONDS));
        return new Object[] {c.exitValue(), out};
    }

    @Test
    void aSecondDaemonOnAnExplicitSocketInUseExitsOneNamingIt() throws Exception {
        Path sock = dir.resolve("taken.sock");
        try (RpcServer _ = RpcServer.start(sock, (m, p) -> p)) {
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            int exit = new picocli.CommandLine(new ServeCli(new java.io.PrintStream(err, true))).execute(
                    "--ram", "1M", "--nqn", "nqn.2026-12.io.nvmf4j:second", "--listen",
                    "127.0.0.1:" + TestDaemons.freePort(), "--provider", "softiwarp", "--poll-groups", "1",
                    "--rpc-socket", sock.toString());
            assertEquals(1, exit);
            assertTrue(err.toString(UTF_8).contains("another daemon answers on " + sock), err.toString(UTF_8));
        }
    }

    @Test
    void sighupReloadsTheConfigAndTheDaemonKeepsRunningSigtermStopsItWithZero() throws Exception {
        try (Daemon d = start(false)) {
            String line = firstLine(d.p());
            assertTrue(line != null && line.contains("listening on"), line + "\n" + d.stderr());
            assertTrue(!d.stderr().contains("ctl reload"), "SIGHUP is handled: no word of ctl reload\n" + d.stderr());
            d.namespaces(2);
            kill("HUP", d.p().pid());
            await(d.p(), d.log(), () -> d.stderr().contains("reload: 1 change(s), 0 problem(s)"), "SIGHUP's reload");
            assertTrue(d.stderr().contains("SIGHUP: re-reading"), d.stderr());
            assertTrue(d.stderr().contains("add namespace 2"), d.stderr());
            assertTrue(d.p().isAlive());
            stopWithZero(d.p(), d.log());
            assertTrue(!Files.exists(dir.resolve("s.sock")), "the socket is removed at stop");
        }
    }

    @Test
    void whereSighupIsIgnoredTheDaemonSaysSoAtStartAndCtlReloadReloads() throws Exception {
        try (Daemon d = start(true)) {
            String line = firstLine(d.p());
            assertTrue(line != null && line.contains("listening on"), line + "\n" + d.stderr());
            // logged before "listening on" is printed, in one line
            String warning = d.stderr().lines().filter(l -> l.contains("SIGHUP")).findFirst().orElse("");
            assertTrue(warning.contains("ignored") && warning.contains("`nvmf4j ctl reload`"), d.stderr());
            d.namespaces(2);
            kill("HUP", d.p().pid()); // ignored: neither a reload nor the end of the daemon
            Object[] reload = ctl("reload");
            assertEquals(0, reload[0], (String) reload[1]);
            assertTrue(((String) reload[1]).contains("add namespace 2"), (String) reload[1]);
            assertTrue(((String) reload[1]).contains("reloaded: 1 change(s), 0 problem(s)"), (String) reload[1]);
            assertTrue(d.stderr().contains("ctl reload: re-reading " + d.config()), d.stderr());
            assertTrue(!d.stderr().contains("SIGHUP: re-reading"), d.stderr());
            Object[] list = ctl("list");
            assertTrue(((String) list[1]).contains("ns 2 "), (String) list[1]);
            Object[] again = ctl("reload");
            assertTrue(((String) again[1]).contains("reloaded: 0 change(s), 0 problem(s)"), (String) again[1]);
            stopWithZero(d.p(), d.log());
        }
    }

    /**
     * SIGTERM the moment the metrics endpoint answers: the daemon is still starting (the endpoint comes up before
     * the transport listens and before "listening on"), and stops with 0, not the JVM's 143. (Before the JVM runs
     * the daemon's first line no program can handle a signal: the test waits for an event of the start-up.)
     */
    @Test
    void sigtermWhileTheDaemonStartsStopsItWithZero() throws Exception {
        int metrics = TestDaemons.freePort();
        try (Daemon d = start(false, "--metrics-port", Integer.toString(metrics))) {
            await(d.p(), d.log(), () -> answers(metrics), "the metrics endpoint answers");
            stopWithZero(d.p(), d.log());
            assertTrue(d.stderr().contains("SIGTERM received: stopping"), d.stderr());
        }
    }

    /** SIGHUP while the daemon starts (the config loaded, not yet listening) is applied once it can be. */
    @Test
    void sighupWhileTheDaemonStartsIsAppliedOnceStarted() throws Exception {
        int metrics = TestDaemons.freePort();
        try (Daemon d = start(false, "--metrics-port", Integer.toString(metrics))) {
            await(d.p(), d.log(), () -> answers(metrics), "the metrics endpoint answers");
            d.namespaces(2);
            kill("HUP", d.p().pid());
            await(d.p(), d.log(), () -> d.stderr().contains("reload: 1 change(s), 0 problem(s)"), "the reload");
            String line = firstLine(d.p());
            assertTrue(line != null && line.contains("listening on"), line + "\n" + d.stderr());
            assertTrue(((String) ctl("list")[1]).contains("ns 2 "), d.stderr());
            stopWithZero(d.p(), d.log());
        }
    }

    private static boolean answers(int port) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/metrics").toURL()
                    .openConnection();
            c.setConnectTimeout(1000);
            c.setReadTimeout(5000);
            try {
                return c.getResponseCode() == 200;
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            return false;
        }
    }
}
