package io.nvmf4j.verbs.conformance;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.ConnectionRejectedException;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.QueuePairState;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Connection establishment: private data both ways, reject, concurrent connects, timeouts against a silent
 * listener or peer, and what a closed listener tells the connectors. Teardown is in
 * {@link ConnectionTeardownConformanceTest}, queue limits in {@link QueueCapacityConformanceTest}.
 */
class ConnectionConformanceTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void privateDataOfConnectAndAcceptReachesTheOtherSide(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            byte[] request = Patterns.bytes(31, 32); // the size of an NVMe-oF RDMA CM request
            byte[] reply = Patterns.bytes(32, 32);
            QueuePairAttributes attributes = QueuePairAttributes.defaults().withReadDepths(8, 4);
            Future<RdmaConnection> connecting = bench.startConnect(attributes, request);
            ConnectRequest incoming = bench.listener().accept(TIMEOUT);
            assertNotNull(incoming, "connect request");
            assertArrayEquals(request, provider.significant(incoming.privateData(), request.length),
                    "request private data seen by the listener");
            assertEquals(8, incoming.peerIrd(), "IRD the connector offered");
            assertEquals(4, incoming.peerOrd(), "ORD the connector asked for");
            assertEquals(ProviderUnderTest.address(), incoming.remoteAddress().getAddress());
            RdmaConnection server = bench.track(incoming.accept(new AcceptParams(bench.server().pd(),
                    bench.server().cq(), bench.server().cq(), QueuePairAttributes.defaults(), reply)));
            RdmaConnection client = bench.track(Loopback.await(connecting));
            assertArrayEquals(reply, provider.significant(client.peerPrivateData(), reply.length),
                    "accept private data seen by the connector");
            assertArrayEquals(request, provider.significant(server.peerPrivateData(), request.length),
                    "request private data on the accepted side");
            assertTrue(client.isConnected());
            assertTrue(server.isConnected());
            assertEquals(QueuePairState.RTS, client.queuePair().state());
            assertEquals(bench.listener().localAddress().getPort(), client.remoteAddress().getPort());
            assertEquals(client.localAddress(), server.remoteAddress());
            // the server answers at most as many Reads at once as the client may have outstanding
            assertTrue(server.queuePair().attributes().ird() >= client.queuePair().attributes().ord(),
                    () -> "server IRD " + server.queuePair().attributes() + " client ORD "
                            + client.queuePair().attributes());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void rejectReachesTheConnectorAsConnectionRejectedExceptionWithItsPrivateData(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            // NVMe-oF RDMA CM reject: recfmt 0, status 0x0006 (invalid queue size), little-endian
            byte[] rejectData = {0x00, 0x00, 0x06, 0x00};
            Future<RdmaConnection> connecting = bench.startConnect(QueuePairAttributes.defaults(), new byte[32]);
            ConnectRequest incoming = bench.listener().accept(TIMEOUT);
            assertNotNull(incoming, "connect request");
            incoming.reject(rejectData);
            ConnectionRejectedException rejected = assertThrows(ConnectionRejectedException.class,
                    () -> Loopback.await(connecting));
            assertArrayEquals(rejectData, provider.significant(rejected.privateData(), rejectData.length));
            assertEquals(VerbsErrorCode.CONNECTION_REFUSED, rejected.code());

            // the listener serves the next request normally
            Loopback.Pair pair = bench.connect();
            assertTrue(pair.client().isConnected());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void eightConcurrentConnectsAreAllAcceptedWithTheirOwnPrivateData(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            int count = 8;
            List<Future<RdmaConnection>> connecting = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                connecting.add(bench.startConnect(QueuePairAttributes.defaults(), new byte[] {(byte) i}));
            }
            Map<Integer, RdmaConnection> servers = new HashMap<>();
            for (int i = 0; i < count; i++) {
                ConnectRequest incoming = bench.listener().accept(TIMEOUT);
                assertNotNull(incoming, "request " + i + " of " + count);
                byte[] data = provider.significant(incoming.privateData(), 1);
                assertEquals(1, data.length);
                RdmaConnection server = bench.track(incoming.accept(new AcceptParams(bench.server().pd(),
                        bench.server().cq(), bench.server().cq(), QueuePairAttributes.defaults(),
                        new byte[] {data[0], (byte) 0xAC})));
                assertNull(servers.put((int) data[0], server), "request " + data[0] + " arrived twice");
            }
            for (int i = 0; i < count; i++) {
                RdmaConnection client = bench.track(Loopback.await(connecting.get(i)));
                assertArrayEquals(new byte[] {(byte) i, (byte) 0xAC}, provider.significant(client.peerPrivateData(), 2),
                        "connector " + i + " got the reply meant for it");
                assertEquals(client.localAddress(), servers.get(i).remoteAddress());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void requestLeftUnansweredIsRefusedWhenTheListenerCloses(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Future<RdmaConnection> waiting = bench.startConnect(QueuePairAttributes.defaults(), new byte[8]);
            Future<RdmaConnection> notYetAccepted = bench.startConnect(QueuePairAttributes.defaults(), new byte[8]);
            assertNotNull(bench.listener().accept(TIMEOUT), "first request"); // taken, never answered
            Thread.sleep(200); // the second request reaches the listener's backlog
            long start = System.nanoTime();
            bench.listener().close();
            for (Future<RdmaConnection> connector : List.of(waiting, notYetAccepted)) {
                VerbsException refused = assertThrows(VerbsException.class, () -> Loopback.await(connector));
                assertTrue(refused.code() == VerbsErrorCode.CONNECTION_REFUSED
                        || refused.code() == VerbsErrorCode.CONNECTION_RESET, refused::getMessage);
            }
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(elapsedMillis < 5_000, "connectors learned of the closed listener after " + elapsedMillis
                    + " ms");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void connectToAPortWithNoListenerFailsWithinTheTimeout(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            InetSocketAddress nobody = Loopback.unusedLoopbackAddress();
            ConnectParams params = new ConnectParams(bench.client().pd(), bench.client().cq(), bench.client().cq(),
                    QueuePairAttributes.defaults(), new byte[0]);
            long start = System.nanoTime();
            VerbsException failure = assertThrows(VerbsException.class,
                    () -> bench.device().connectionManager().connect(nobody, params, Duration.ofSeconds(5)));
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(elapsedMillis < 5_000, "connect to a closed port took " + elapsedMillis + " ms");
            assertEquals(VerbsErrorCode.CONNECTION_REFUSED, failure.code(), failure::getMessage);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void connectToAListenerThatNeverAnswersTimesOutAndTheListenerCanStillAccept(ProviderUnderTest provider)
            throws Exception {
        // the silent peer every transport has: a listener that takes the request and neither accepts nor rejects
        try (Loopback bench = Loopback.open(provider)) {
            ConnectParams params = new ConnectParams(bench.client().pd(), bench.client().cq(), bench.client().cq(),
                    QueuePairAttributes.defaults(), new byte[0]);
            long start = System.nanoTime();
            VerbsException failure = assertThrows(VerbsException.class, () -> bench.device().connectionManager()
                    .connect(bench.listener().localAddress(), params, Duration.ofSeconds(2)));
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(VerbsErrorCode.TIMED_OUT, failure.code(), failure::getMessage);
            assertTrue(elapsedMillis >= 1_500 && elapsedMillis < 6_000,
                    "a 2 s connect timeout took " + elapsedMillis + " ms");
            // the request that timed out may still be queued at the listener: answering it must not break anything
            ConnectRequest stale = bench.listener().accept(Duration.ofMillis(100));
            if (stale != null) {
                try {
                    stale.reject(new byte[0]);
                } catch (VerbsException peerGone) {
                    // refusing a request whose connector gave up may fail; it must not break the listener
                }
            }
            Loopback.Pair pair = bench.connect();
            assertTrue(pair.client().isConnected() && pair.server().isConnected());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void connectToAPeerThatNeverAnswersTimesOut(ProviderUnderTest provider) throws Exception {
        Assumptions.assumeTrue(provider.tcpPeerLimitation() == null, provider.tcpPeerLimitation());
        try (Loopback bench = Loopback.open(provider);
                ServerSocket silent = new ServerSocket(0, 4, ProviderUnderTest.address())) {
            // accepts the TCP connection (the kernel does) but never sends an MPA reply / CM answer
            ConnectParams params = new ConnectParams(bench.client().pd(), bench.client().cq(), bench.client().cq(),
                    QueuePairAttributes.defaults(), new byte[0]);
            InetSocketAddress address = new InetSocketAddress(ProviderUnderTest.address(), silent.getLocalPort());
            long start = System.nanoTime();
            VerbsException failure = assertThrows(VerbsException.class,
                    () -> bench.device().connectionManager().connect(address, params, Duration.ofSeconds(2)));
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(VerbsErrorCode.TIMED_OUT, failure.code(), failure::getMessage);
            assertTrue(elapsedMillis >= 1_500 && elapsedMillis < 6_000,
                    "a 2 s connect timeout took " + elapsedMillis + " ms");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void closedListenerRefusesConnectionsAndItsAcceptFailsWithClosed(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            InetSocketAddress address = bench.listener().localAddress();
            bench.listener().close();
            VerbsException closed = assertThrows(VerbsException.class,
                    () -> bench.listener().accept(Duration.ofMillis(100)));
            assertEquals(VerbsErrorCode.CLOSED, closed.code(), closed::getMessage);
            ConnectParams params = new ConnectParams(bench.client().pd(), bench.client().cq(), bench.client().cq(),
                    QueuePairAttributes.defaults(), new byte[0]);
            assertThrows(VerbsException.class,
                    () -> bench.device().connectionManager().connect(address, params, Duration.ofSeconds(3)));
            try (Socket probe = new Socket()) {
                assertThrows(ConnectException.class, () -> probe.connect(address, 2000),
                        "TCP port of a closed listener still accepts");
            }
        }
    }
}
