package io.nvmf4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** {@code nvmf4j rping} as a user types it: flags, exit statuses, output. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RpingCliTest {

    private record Run(int status, String out, String err) {
    }

    private static Run rping(StringWriter out, String... args) {
        StringWriter err = new StringWriter();
        String[] full = new String[args.length + 1];
        full[0] = "rping";
        System.arraycopy(args, 0, full, 1, args.length);
        CommandLine cli = Nvmf4j.commandLine(full);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int status = cli.execute(full);
        return new Run(status, out.toString(), err.toString());
    }

    @Test
    void clientWithoutAnAddressIsAUsageError() {
        Run run = rping(new StringWriter(), "-c", "-C", "1");
        assertEquals(2, run.status());
        assertTrue(run.err().contains("needs the server's address (-a addr)"), run.err());
    }

    @Test
    void sizeOutsideRpingsRangeIsRefusedAsRpingDoes() {
        Run run = rping(new StringWriter(), "-c", "-a", "127.0.0.1", "-S", "25");
        assertEquals(2, run.status());
        assertTrue(run.err().contains("Invalid size 25 (valid range is 26 to 65535)"), run.err());
    }

    @Test
    void serverAndClientAreExclusive() {
        Run run = rping(new StringWriter(), "-s", "-c", "-a", "127.0.0.1");
        assertEquals(2, run.status());
    }

    @Test
    void clientWithNoServerListeningFailsWithStatusOne() throws Exception {
        int port;
        try (var probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Run run = rping(new StringWriter(), "-c", "-a", "127.0.0.1", "-p", String.valueOf(port), "-C", "1",
                "--timeout", "5", "--provider", "softiwarp");
        assertEquals(1, run.status(), run.out() + run.err());
        assertTrue(run.err().startsWith("rping"), run.err());
    }

    @Test
    void clientAndServerCommandsPingEachOtherWithVerifiedData() throws Exception {
        StringWriter serverOut = new StringWriter();
        CompletableFuture<Run> server = CompletableFuture.supplyAsync(() -> rping(serverOut, "-s", "-a", "127.0.0.1",
                "-p", "0", "-C", "4", "-V", "-v", "--timeout", "30", "--provider", "softiwarp"));
        Matcher listening = Pattern.compile("rping server listening on 127\\.0\\.0\\.1:(\\d+)").matcher("");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!listening.reset(serverOut.toString()).find()) {
            assertTrue(System.nanoTime() < deadline && !server.isDone(), "server did not listen: " + serverOut);
            Thread.sleep(20);
        }
        Run client = rping(new StringWriter(), "-c", "-a", "127.0.0.1", "-p", listening.group(1), "-C", "4", "-S",
                "1000", "-V", "--provider", "softiwarp");
        Run served = server.get(30, TimeUnit.SECONDS);
        assertEquals(0, client.status(), client.err());
        assertTrue(client.out().contains("rping client: 4 pings of 1000 bytes, data verified"), client.out());
        assertEquals(0, served.status(), served.err());
        assertTrue(served.out().contains("server ping data: rdma-ping-3: DEFGH"), served.out());
        assertTrue(served.out().contains("rping server: 4 pings of 1000 bytes, data verified"), served.out());
    }
}
