package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue F12: TCP connections that never send an MPA request, and requests the application never answers, hold
 * a bounded number of sockets for a bounded time: per listener, per peer address, and the MPA timeout (siw's MPA
 * timer), each refusal counted with its reason.
 */
@Timeout(60)
class ListenerLimitsTest {
    private static final Duration MPA_TIMEOUT = Duration.ofMillis(1500);

    private static SoftiwarpConfig config(int perListener, int perPeer) {
        return SoftiwarpConfig.fromSystemProperties().withSetupLimits(perListener, perPeer, MPA_TIMEOUT);
    }

    @Test
    void twoHundredSilentConnectionsStayBoundedAndTimeOutWhileALegitimateClientStillConnects() throws Exception {
        SoftiwarpDevice server = new SoftiwarpDevice(config(128, 16));
        List<Socket> silent = new ArrayList<>();
        try (server; RdmaDevice client = new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties());
             RdmaListener listener = server.connectionManager().listen(new InetSocketAddress("127.0.0.1", 0), 8)) {
            SoftiwarpListener impl = (SoftiwarpListener) listener;
            int maxSeen = 0;
            for (int i = 0; i < 200; i++) {
                Socket s = new Socket();
                s.connect(listener.localAddress(), 2000);
                silent.add(s);
                maxSeen = Math.max(maxSeen, impl.pendingCount());
            }
            // every silent socket comes from 127.0.0.1: the per-address cap holds them to 16
            waitUntil(() -> server.rejectedPeers().count(RejectedPeers.Reason.PEER_PENDING_LIMIT) >= 184, 5000);
            assertTrue(maxSeen <= 16 && impl.pendingCount() <= 16, "pending connections: max " + maxSeen + ", now "
                    + impl.pendingCount());

            // a client that sends its MPA request at once gets through the flood, quickly
            ProtectionDomain serverPd = server.allocatePd();
            CompletionQueue serverCq = server.createCompletionQueue(16);
            ProtectionDomain clientPd = client.allocatePd();
            CompletionQueue clientCq = client.createCompletionQueue(16);
            CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    ConnectRequest req = listener.accept(Duration.ofSeconds(5));
                    return req.accept(new AcceptParams(serverPd, serverCq, serverCq, QueuePairAttributes.defaults(),
                            new byte[0], null));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            long start = System.nanoTime();
            try (RdmaConnection connection = client.connectionManager().connect(listener.localAddress(),
                    new ConnectParams(clientPd, clientCq, clientCq, QueuePairAttributes.defaults(), new byte[0], null),
                    Duration.ofSeconds(5));
                 RdmaConnection serverSide = accepted.get(5, TimeUnit.SECONDS)) {
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(connection.isConnected() && serverSide.isConnected());
                assertTrue(millis < 1000, "legitimate connect took " + millis + " ms during the flood");
            }

            // after the MPA timeout every silent socket is closed, and counted
            long deadline = System.nanoTime() + MPA_TIMEOUT.toNanos() + 3_000_000_000L;
            for (Socket s : silent) {
                assertTrue(closedByPeer(s, deadline), "a silent connection is still open after the MPA timeout");
            }
            waitUntil(() -> impl.pendingCount() == 0, 3000);
            RejectedPeers rejected = server.rejectedPeers();
            assertEquals(200, rejected.count(RejectedPeers.Reason.PEER_PENDING_LIMIT)
                    + rejected.count(RejectedPeers.Reason.MPA_TIMEOUT), rejected::toString);
            assertTrue(rejected.count(RejectedPeers.Reason.MPA_TIMEOUT) >= 1, rejected::toString);
        } finally {
            for (Socket s : silent) {
                s.close();
            }
        }
    }

    @Test
    void theListenerCapClosesTheOldestPendingConnection() throws Exception {
        // a per-address cap above the listener's: the listener cap is the one that bites
        SoftiwarpDevice server = new SoftiwarpDevice(config(8, 100));
        List<Socket> silent = new ArrayList<>();
        try (server; RdmaListener listener = server.connectionManager().listen(
                new InetSocketAddress("127.0.0.1", 0), 8)) {
            SoftiwarpListener impl = (SoftiwarpListener) listener;
            for (int i = 0; i < 20; i++) {
                Socket s = new Socket();
                s.connect(listener.localAddress(), 2000);
                silent.add(s);
            }
            waitUntil(() -> server.rejectedPeers().count(RejectedPeers.Reason.LISTENER_PENDING_LIMIT) == 12, 5000);
            assertTrue(impl.pendingCount() <= 8, "pending " + impl.pendingCount());
            long deadline = System.nanoTime() + 2_000_000_000L;
            // the twelve oldest went first
            for (int i = 0; i < 12; i++) {
                assertTrue(closedByPeer(silent.get(i), deadline), "connection " + i + " of 20 is still open");
            }
        } finally {
            for (Socket s : silent) {
                s.close();
            }
        }
    }

    @Test
    void aRequestTheApplicationNeverAnswersIsRejectedAfterTheTimeout() throws Exception {
        SoftiwarpDevice server = new SoftiwarpDevice(config(128, 16));
        try (server; RdmaDevice client = new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties());
             RdmaListener listener = server.connectionManager().listen(new InetSocketAddress("127.0.0.1", 0), 8)) {
            ProtectionDomain clientPd = client.allocatePd();
            CompletionQueue clientCq = client.createCompletionQueue(16);
            // nobody calls listener.accept(): the request waits in the queue until the listener rejects it
            long start = System.nanoTime();
            VerbsException e = assertThrows(VerbsException.class, () -> client.connectionManager().connect(
                    listener.localAddress(), new ConnectParams(clientPd, clientCq, clientCq,
                            QueuePairAttributes.defaults(), new byte[0], null), Duration.ofSeconds(10)));
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(VerbsErrorCode.CONNECTION_REFUSED, e.code(), e::getMessage);
            assertTrue(millis >= MPA_TIMEOUT.toMillis() - 100 && millis < MPA_TIMEOUT.toMillis() + 3000,
                    "refused after " + millis + " ms");
            assertEquals(1, server.rejectedPeers().count(RejectedPeers.Reason.ACCEPT_TIMEOUT));
            assertNull(listener.accept(Duration.ofMillis(10)), "the rejected request is still queued");
        }
    }

    @Test
    void aRequestTakenButNeverAnsweredIsRejectedAfterTheTimeout() throws Exception {
        SoftiwarpDevice server = new SoftiwarpDevice(config(128, 16));
        try (server; RdmaDevice client = new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties());
             RdmaListener listener = server.connectionManager().listen(new InetSocketAddress("127.0.0.1", 0), 8)) {
            ProtectionDomain clientPd = client.allocatePd();
            CompletionQueue clientCq = client.createCompletionQueue(16);
            CompletableFuture<ConnectRequest> taken = CompletableFuture.supplyAsync(() -> {
                try {
                    return listener.accept(Duration.ofSeconds(5));
                } catch (Exception ex) {
                    throw new RuntimeException(ex);
                }
            });
            VerbsException e = assertThrows(VerbsException.class, () -> client.connectionManager().connect(
                    listener.localAddress(), new ConnectParams(clientPd, clientCq, clientCq,
                            QueuePairAttributes.defaults(), new byte[0], null), Duration.ofSeconds(10)));
            assertEquals(VerbsErrorCode.CONNECTION_REFUSED, e.code(), e::getMessage);
            ConnectRequest request = taken.get(5, TimeUnit.SECONDS);
            assertNotNull(request);
            assertEquals(1, server.rejectedPeers().count(RejectedPeers.Reason.ACCEPT_TIMEOUT));
            assertThrows(VerbsException.class, () -> request.reject(new byte[0]), "answering a timed-out request");
        }
    }

    /** Whether the provider closed {@code s} (EOF or reset) before {@code deadline}; the peer never writes. */
    private static boolean closedByPeer(Socket s, long deadline) throws IOException {
        InputStream in = s.getInputStream();
        byte[] buffer = new byte[256];
        while (true) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return false;
            }
            s.setSoTimeout((int) Math.max(1, remaining / 1_000_000));
            try {
                if (in.read(buffer) < 0) {
                    return true;
                }
            } catch (SocketTimeoutException e) {
                return false;
            } catch (SocketException e) {
                return true; // reset
            }
        }
    }

    private interface Condition {
        boolean holds();
    }

    private static void waitUntil(Condition condition, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (!condition.holds() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }
}
