package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code nvmf4j serve} as a process: SIGHUP reloads (it used to kill the daemon with exit 129), SIGTERM stops it with 0. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServeSignalsTest {

    @TempDir
    Path dir;

    private static void kill(String signal, long pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor());
    }

    @Test
    void aSecondDaemonOnAnExplicitSocketInUseExitsOneNamingIt() throws Exception {
        Path sock = dir.resolve("taken.sock");
        try (RpcServer first = RpcServer.start(sock, (m, p) -> p)) {
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            int exit = new picocli.CommandLine(new ServeCommand(new java.io.PrintStream(err, true))).execute(
                    "--ram", "1M", "--nqn", "nqn.2026-12.io.nvmf4j:second", "--listen",
                    "127.0.0.1:" + TestDaemons.freePort(), "--provider", "softiwarp", "--poll-groups", "1",
                    "--rpc-socket", sock.toString());
            assertEquals(1, exit);
            assertTrue(err.toString().contains("another daemon answers on " + sock), err.toString());
        }
    }

    @Test
    void sighupReloadsTheConfigAndTheDaemonKeepsRunningSigtermStopsItWithZero() throws Exception {
        Path config = dir.resolve("config.json");
        Files.writeString(config, io.nvmf4j.config.QuickConfig.builder().nqn("nqn.2026-12.io.nvmf4j:signals")
                .ram("1M").listen("127.0.0.1:" + TestDaemons.freePort()).build().config().toJson());
        Path log = dir.resolve("stderr.log");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "io.nvmf4j.cli.Nvmf4j", "serve", "--config", config.toString(), "--provider", "softiwarp",
                "--poll-groups", "1", "--rpc-socket", dir.resolve("s.sock").toString()))
                .redirectError(log.toFile()).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertTrue(line != null && line.contains("listening on"), line + "\n" + Files.readString(log));
            kill("HUP", p.pid());
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!Files.readString(log).contains("reload: no change")) {
                assertTrue(p.isAlive(), "SIGHUP killed the daemon:\n" + Files.readString(log));
                assertTrue(System.nanoTime() < end, Files.readString(log));
                Thread.sleep(50);
            }
            assertTrue(p.isAlive());
            kill("TERM", p.pid());
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), Files.readString(log));
            assertTrue(!Files.exists(dir.resolve("s.sock")), "the socket is removed at stop");
        } finally {
            p.destroyForcibly();
        }
    }
}
