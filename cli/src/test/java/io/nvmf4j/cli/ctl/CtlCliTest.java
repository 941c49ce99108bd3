package io.nvmf4j.cli.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.serve.RpcServer;
import io.nvmf4j.cli.serve.TestDaemons;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code nvmf4j ctl} and {@code nvmf4j rpc} against a running daemon's socket. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CtlCliTest {

    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {
    }

    private static Run ctl(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = new CommandLine(new CtlCli(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8))).execute(args);
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** ctl as a user runs it without --socket, whose default socket is {@code defaultSocket}. */
    private static Run ctlAt(Path defaultSocket, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CtlCli ctl = new CtlCli(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        ctl.socket.defaults = () -> defaultSocket;
        int exit = new CommandLine(ctl).execute(args);
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Run rpc(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = new CommandLine(new RpcCli(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8))).execute(args);
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void anOperatorAddsAndRemovesANamespaceAndListsWhatRuns() throws Exception {
        try (TestDaemons.WithSocket d = TestDaemons.withSocket(dir)) {
            String s = d.socket().toString();
            Run add = ctl("add-namespace", TestDaemons.NQN, "--size", "2M", "--socket", s);
            assertEquals(0, add.exit(), add.err());
            assertEquals("namespace 2", add.out().trim());
            Run list = ctl("--socket", s, "list");
            assertTrue(list.out().contains(TestDaemons.NQN), list.out());
            assertTrue(list.out().contains("ns 2 "), list.out());
            assertTrue(list.out().contains("2097152 bytes"), list.out());
            Run remove = ctl("--socket", s, "remove-namespace", TestDaemons.NQN, "2");
            assertEquals(0, remove.exit(), remove.err());
            Run again = ctl("--socket", s, "remove-namespace", TestDaemons.NQN, "2");
            assertEquals(1, again.exit());
            assertTrue(again.err().contains("has no namespace 2") && again.err().contains("-32602"), again.err());
            Run methods = rpc("rpc_get_methods", "--socket", s);
            assertTrue(methods.out().contains("nvmf_subsystem_add_ns"), methods.out());
            Run raw = rpc("nvmf_get_subsystems", "--socket", s, "--param", "nqn=" + TestDaemons.NQN);
            assertTrue(raw.out().contains("\"serial_number\""), raw.out());
        }
    }

    @Test
    void aRamNamespaceLargerThanTheMachineIsRefusedAndTheDaemonGoesOnAnswering() throws Exception {
        try (TestDaemons.WithSocket d = TestDaemons.withSocket(dir)) {
            String s = d.socket().toString();
            Run big = ctl("add-namespace", TestDaemons.NQN, "--size", "10T", "--socket", s);
            assertEquals(1, big.exit(), big.out());
            assertTrue(big.err().contains("RAM namespace of 10 TiB") && big.err().contains("does not fit")
                    && big.err().contains("-32602"), big.err());
            assertTrue(!big.err().contains("\tat ") && !big.err().contains("OutOfMemoryError"), big.err());
            Run list = ctl("--socket", s, "list");
            assertEquals(0, list.exit(), list.err());
            assertTrue(!list.out().contains("ns 2 "), "nothing was added\n" + list.out());
            Run add = ctl("add-namespace", TestDaemons.NQN, "--size", "2M", "--socket", s);
            assertEquals(0, add.exit(), add.err());
        }
    }

    @Test
    void listShowsARamNamespacesSizeOnce() throws Exception {
        try (TestDaemons.WithSocket d = TestDaemons.withSocket(dir)) {
            Run list = ctl("--socket", d.socket().toString(), "list");
            assertEquals(0, list.exit(), list.err());
            assertTrue(list.out().contains("\n  ns 1   ram  1048576 bytes  512-byte blocks\n"), list.out());
        }
    }

    @Test
    void ctlWithoutSocketSaysWhichDaemonItReached() throws Exception {
        try (TestDaemons.WithSocket d = TestDaemons.withSocket(dir)) {
            Run list = ctlAt(d.socket(), "list");
            assertEquals(0, list.exit(), list.err());
            assertEquals("nvmf4j ctl: daemon pid " + ProcessHandle.current().pid() + " (no --config) on "
                    + d.socket(), list.err().strip());
            assertTrue(list.out().contains(TestDaemons.NQN), list.out());
            Run named = ctl("--socket", d.socket().toString(), "list");
            assertEquals("", named.err(), "the user named the socket: nothing more to say");
        }
    }

    @Test
    void ctlAndRpcTakeServesSocketOptionNameAndKeepTheirOwn() throws Exception {
        try (TestDaemons.WithSocket d = TestDaemons.withSocket(dir)) {
            String s = d.socket().toString();
            for (String name : new String[] {"--rpc-socket", "--socket", "-s"}) {
                Run list = ctl(name, s, "list");
                assertEquals(0, list.exit(), name + ": " + list.err());
                assertTrue(list.out().contains(TestDaemons.NQN), list.out());
                Run methods = rpc("rpc_get_methods", name, s);
                assertEquals(0, methods.exit(), name + ": " + methods.err());
            }
            Run after = ctl("list", "--rpc-socket", s);
            assertEquals(0, after.exit(), "after the subcommand too: " + after.err());
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void aDaemonThatNeverAnswersIsReportedAfterTheTimeoutNamingIt() throws Exception {
        Path socket = dir.resolve("stuck.sock");
        CountDownLatch release = new CountDownLatch(1);
        // a daemon whose management thread hangs in one method (what a 10 TiB allocation once did for minutes)
        try (RpcServer _ = RpcServer.start(socket, (method, params) -> switch (method) {
            case "nvmf4j_get_daemon" -> Map.of("pid", 4242, "config", "/etc/nvmf4j/config.json");
            default -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                yield true;
            }
        })) {
            long start = System.nanoTime();
            Run r = ctlAt(socket, "--timeout", "1", "add-namespace", TestDaemons.NQN, "--size", "1M");
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            release.countDown();
            assertEquals(1, r.exit(), r.out());
            assertEquals("nvmf4j: daemon pid 4242 (--config /etc/nvmf4j/config.json) at " + socket
                    + " did not answer nvmf_subsystem_add_ns within 1 s (--timeout SECONDS to wait longer; the"
                    + " change may still be applied: check with ctl list)", r.err().strip());
            assertTrue(took >= 900 && took < 10_000, "waited " + took + " ms");
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void aSocketNobodyServesAnyMoreIsReportedAfterTheTimeout() throws Exception {
        Path socket = dir.resolve("dead.sock");
        // bound and listening, nothing accepts: what is left of a daemon whose management thread died
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(socket), 4);
            Run r = ctl("--socket", socket.toString(), "--timeout", "0.5", "list");
            assertEquals(1, r.exit(), r.out());
            assertTrue(r.err().startsWith("nvmf4j: the daemon at " + socket + " did not answer nvmf_get_subsystems"
                    + " within 500 ms"), r.err());
            Run raw = rpc("rpc_get_methods", "--socket", socket.toString(), "--timeout", "0.5");
            assertEquals(1, raw.exit(), raw.out());
            assertTrue(raw.err().contains("did not answer rpc_get_methods within 500 ms"), raw.err());
        }
    }

    @Test
    void noDaemonOnTheSocketIsOneLineNotAStackTrace() {
        Run r = ctl("--socket", dir.resolve("none.sock").toString(), "list");
        assertEquals(1, r.exit());
        assertTrue(r.err().contains("cannot reach the daemon"), r.err());
        assertTrue(!r.err().contains("\tat "), r.err());
    }
}
