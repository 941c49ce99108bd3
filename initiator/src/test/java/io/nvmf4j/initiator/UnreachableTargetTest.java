package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Nqn;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A target that is not there, or that accepts TCP and then says nothing: an error within the timeout. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UnreachableTargetTest {

    private static ConnectOptions options(InetSocketAddress address, Duration connectTimeout) {
        return ConnectOptions.builder(address, Nqn.parse("nqn.2026-12.io.nvmf4j:absent"))
                .host(HostIdentity.generate()).provider("softiwarp").ioQueues(1)
                .connectTimeout(connectTimeout).commandTimeout(Duration.ofSeconds(2)).build();
    }

    @Test
    void closedPortFailsFastWithAConnectError() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        long start = System.nanoTime();
        NvmfConnectException e = assertThrows(NvmfConnectException.class,
                () -> NvmeController.connect(options(address, Duration.ofSeconds(3))));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(ms < 4000, "took " + ms + " ms");
        assertTrue(e.getMessage().contains(address.toString()), e.getMessage());
    }

    @Test
    @SuppressWarnings("try") // the listener is closed early to end the acceptor thread; the second close is a no-op
    void silentListenerFailsWithinTheConnectTimeout() throws Exception {
        List<Socket> accepted = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            Thread acceptor = Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept()); // accept, never answer the MPA request
                    }
                } catch (Exception done) {
                    // closed
                }
            });
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), silent.getLocalPort());
            long start = System.nanoTime();
            NvmfConnectException e = assertThrows(NvmfConnectException.class,
                    () -> NvmeController.connect(options(address, Duration.ofMillis(1500))));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(ms >= 1000 && ms < 5000, "took " + ms + " ms");
            assertTrue(e.getMessage().contains("no answer within 1500 ms"), e.getMessage());
            silent.close();
            acceptor.join(2000);
        } finally {
            for (Socket s : accepted) {
                s.close();
            }
        }
    }
}
