package io.nvmf4j.cli.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaProviders;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** nvmf4j's rping client against nvmf4j's rping server over softiwarp on 127.0.0.1. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RpingLoopbackTest {

    private static RpingOptions options(int port, int count, int size) {
        return new RpingOptions(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), count, size, true, true,
                false, "softiwarp", Duration.ofSeconds(20));
    }

    private record Outcome(RpingResult server, RpingResult client, String serverOut, String clientOut) {
    }

    private static Outcome ping(int serverCount, int clientCount, int size) throws Exception {
        try (RdmaDevice device = RdmaProviders.byName("softiwarp").openDevice(null)) {
            StringBuilder serverText = new StringBuilder();
            StringBuilder clientText = new StringBuilder();
            CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
            CompletableFuture<RpingResult> server = CompletableFuture.supplyAsync(() -> {
                try {
                    return new RpingServer(options(0, serverCount, RpingPattern.DEFAULT_SIZE),
                            line -> serverText.append(line).append('\n')).run(device, bound::complete);
                } catch (Exception e) {
                    bound.completeExceptionally(e);
                    throw new IllegalStateException(e);
                }
            });
            int port = bound.get(20, TimeUnit.SECONDS).getPort();
            RpingResult client = new RpingClient(options(port, clientCount, size),
                    line -> clientText.append(line).append('\n')).run(device);
            RpingResult served = server.get(20, TimeUnit.SECONDS);
            return new Outcome(served, client, serverText.toString(), clientText.toString());
        }
    }

    @Test
    void tenPingsOfFourKibibytesAreReadWrittenBackAndVerifiedOnBothSides() throws Exception {
        Outcome outcome = ping(10, 10, 4096);
        assertEquals(10, outcome.client().pings());
        assertEquals(10, outcome.server().pings());
        assertEquals(4096, outcome.server().size(), "the server reads the size the client advertised");
        assertTrue(outcome.client().verified() && outcome.server().verified());
        String[] lines = outcome.serverOut().split("\n");
        assertEquals(10, lines.length);
        assertTrue(lines[9].startsWith("server ping data: rdma-ping-9: JKLMNOP"), lines[9]);
        assertEquals(4095, lines[9].length() - "server ping data: ".length(), "the C string of a 4096-byte ping");
        assertTrue(outcome.clientOut().startsWith("ping data: rdma-ping-0: ABCDEF"));
    }

    @Test
    void smallestAndLargestSizesRpingAllows() throws Exception {
        assertEquals(3, ping(3, 3, RpingPattern.MIN_SIZE).server().pings());
        assertEquals(2, ping(2, 2, RpingPattern.MAX_SIZE).server().pings());
    }

    @Test
    void serverToldACountReportsAClientThatLeftEarly() {
        ExecutionException e = assertThrows(ExecutionException.class, () -> ping(5, 3, 64));
        assertTrue(String.valueOf(e.getCause().getMessage()).contains("left after 3 of 5 pings"), e.toString());
    }
}
