package io.nvmf4j.verbs.conformance;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static io.nvmf4j.verbs.conformance.WorkRequests.receive;
import static io.nvmf4j.verbs.conformance.WorkRequests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.QueuePairState;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ending a connection with work outstanding: a disconnect, a queue pair or a device closed, or a peer gone
 * mid-transfer. Each side learns of the end, and every work request posted completes exactly once (in error
 * when it could not finish), none left hanging.
 */
class ConnectionTeardownConformanceTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void disconnectIsDeliveredToThePeerAndFlushesItsReceives(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion inbox = bench.server().registerOpen(4 * 64);
            for (int i = 0; i < 4; i++) {
                pair.server().queuePair().postReceive(receive(40 + i, inbox, i * 64L, 64));
            }
            pair.client().disconnect();

            DisconnectEvent local = Loopback.awaitDisconnect(pair.client());
            DisconnectEvent remote = Loopback.awaitDisconnect(pair.server());
            assertEquals(DisconnectEvent.Cause.LOCAL_DISCONNECT, local.cause(), local.detail());
            assertEquals(DisconnectEvent.Cause.PEER_DISCONNECT, remote.cause(), remote.detail());
            List<WorkCompletion> flushed = bench.server().awaitCompletions(4, TIMEOUT);
            for (int i = 0; i < 4; i++) {
                assertEquals(40 + i, flushed.get(i).wrId());
                assertEquals(WcStatus.WR_FLUSH_ERR, flushed.get(i).status());
            }
            assertEquals(QueuePairState.ERROR, pair.server().queuePair().state());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void closingAQueuePairWithOutstandingReceivesFlushesThemAndTheOtherSideSeesTheEnd(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion inbox = bench.server().registerOpen(8 * 64);
            for (int i = 0; i < 8; i++) {
                pair.server().queuePair().postReceive(receive(i, inbox, i * 64L, 64));
            }
            pair.server().queuePair().close();

            List<WorkCompletion> flushed = bench.server().awaitCompletions(8, TIMEOUT);
            for (int i = 0; i < 8; i++) {
                assertEquals(i, flushed.get(i).wrId());
                assertEquals(WcStatus.WR_FLUSH_ERR, flushed.get(i).status(), flushed.get(i)::toString);
            }
            Loopback.awaitDisconnect(pair.server());
            Loopback.awaitDisconnect(pair.client());
            pair.server().close(); // idempotent after the queue pair was closed
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void closingAQueuePairWithAReadInFlightCompletesItAndLaterPostsAreRefusedOrFlushed(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            int size = 16 << 20;
            GuardedRegion remote = bench.server().register(size, AccessFlag.REMOTE_READ).fill(49);
            GuardedRegion sink = bench.client().registerOpen(size);
            pair.client().queuePair().postSend(WorkRequests.rdmaRead(1, sink, 0, size, remote.address(0),
                    remote.rkey()));
            pair.client().queuePair().close();

            WorkCompletion wc = bench.client().awaitCompletion(TIMEOUT);
            assertEquals(1, wc.wrId());
            assertTrue(wc.status() == WcStatus.SUCCESS || wc.status() == WcStatus.WR_FLUSH_ERR, wc::toString);
            if (wc.status() == WcStatus.SUCCESS) {
                Patterns.assertSameBytes(remote.segment(), sink.segment(), "a Read that finished before the close");
            }
            Loopback.awaitDisconnect(pair.server());
            try {
                pair.client().queuePair().postSend(send(2, sink, 0, 8));
                WorkCompletion late = bench.client().awaitCompletion(TIMEOUT);
                assertEquals(WcStatus.WR_FLUSH_ERR, late.status(), late::toString);
            } catch (VerbsException e) {
                assertTrue(e.code() == VerbsErrorCode.CLOSED || e.code() == VerbsErrorCode.INVALID_STATE,
                        e::getMessage);
            }
            sink.assertGuardsIntact();
        }
    }

    /**
     * The close above, sixteen times over on fresh connections: each Read in flight at the close completes (its
     * data whole if it succeeded). A provider whose device flushes the send queue after the close returned (kernel
     * rxe's completer tasklet, maybe busy with the Read's responses) and destroys the queue pair first loses the
     * Read now and then (in the lab before the ibverbs provider drained the send queue at the close: 4 of 30 and 16
     * of 60 closes with 16 MiB Reads, hardly ever with 1 MiB ones); one close rarely shows it.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void closingQueuePairsWithAReadInFlightCompletesEveryRead(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            int size = 16 << 20;
            GuardedRegion remote = bench.server().register(size, AccessFlag.REMOTE_READ).fill(53);
            GuardedRegion sink = bench.client().registerOpen(size);
            for (int i = 0; i < 16; i++) {
                int round = i;
                Loopback.Pair pair = bench.connect();
                pair.client().queuePair().postSend(WorkRequests.rdmaRead(round, sink, 0, size, remote.address(0),
                        remote.rkey()));
                pair.client().queuePair().close();

                WorkCompletion wc = bench.client().awaitCompletion(TIMEOUT);
                assertEquals(round, wc.wrId(), wc::toString);
                assertTrue(wc.status() == WcStatus.SUCCESS || wc.status() == WcStatus.WR_FLUSH_ERR,
                        () -> "round " + round + ": " + wc);
                if (wc.status() == WcStatus.SUCCESS) {
                    Patterns.assertSameBytes(remote.segment(), sink.segment(), "a Read that finished before the close");
                }
                Loopback.awaitDisconnect(pair.server());
                pair.server().close();
            }
            sink.assertGuardsIntact();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void closingADeviceEndsItsConnectionsAndThePeerOnAnotherDeviceSeesTheEnd(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            RdmaDevice other = bench.track(provider.openDevice());
            ProtectionDomain pd = other.allocatePd();
            CompletionQueue cq = other.createCompletionQueue(64);
            Future<RdmaConnection> connecting = bench.startConnect(QueuePairAttributes.defaults(), new byte[0]);
            ConnectRequest incoming = bench.listener().accept(TIMEOUT);
            assertNotNull(incoming, "connect request");
            RdmaConnection server = incoming.accept(new AcceptParams(pd, cq, cq, QueuePairAttributes.defaults(),
                    new byte[0]));
            RdmaConnection client = bench.track(Loopback.await(connecting));
            GuardedRegion inbox = GuardedRegion.register(bench.arena(), pd, 64,
                    EnumSet.of(AccessFlag.LOCAL_WRITE));
            server.queuePair().postReceive(receive(5, inbox, 0, 64));

            other.close(); // everything on it: the connection, its queue pair, CQ, PD, region
            DisconnectEvent local = Loopback.awaitDisconnect(server);
            assertEquals(DisconnectEvent.Cause.LOCAL_DISCONNECT, local.cause(), local.detail());
            Loopback.awaitDisconnect(client);
            other.close(); // idempotent
            server.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void peerThatDisappearsMidTransferLeavesNoWorkRequestHanging(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            int size = 16 << 20;
            GuardedRegion remote = bench.server().register(size, AccessFlag.REMOTE_READ).fill(47);
            GuardedRegion sink = bench.client().registerOpen(size);
            GuardedRegion outbox = bench.client().registerOpen(64 * 1024).fill(48);
            GuardedRegion inbox = bench.server().registerOpen(64 * 1024);
            for (int i = 0; i < 16; i++) {
                pair.server().queuePair().postReceive(receive(i, inbox, i * 4096L, 4096));
            }
            int posted = 0;
            pair.client().queuePair().postSend(WorkRequests.rdmaRead(posted++, sink, 0, size, remote.address(0),
                    remote.rkey()));
            for (int i = 0; i < 32; i++) { // more Sends than receives: the tail has nowhere to go anyway
                pair.client().queuePair().postSend(send(posted++, outbox, i * 2048L, 2048));
            }
            pair.server().close(); // the peer goes away with the Read in flight

            List<WorkCompletion> done = bench.client().awaitCompletions(posted, TIMEOUT);
            // every request completes exactly once (a Send may complete before the Read posted ahead of it:
            // iWARP completes Sends when they are on the wire, a Read when its response is in). Whether one of
            // them fails is not asserted: on a fast machine the peer may answer the whole Read before the close,
            // and then all succeed. (With the Sends posted ahead of the Read instead, so that the peer's
            // Terminate at the 17th keeps the Read unanswered, Linux siw never completed the Read at all.)
            assertEquals(LongStream.range(0, posted).boxed().toList(),
                    done.stream().map(WorkCompletion::wrId).sorted().toList(), "work requests completed");
            Loopback.awaitDisconnect(pair.client());
            assertEquals(QueuePairState.ERROR, pair.client().queuePair().state());
            // posting on the broken queue pair is accepted and flushed, as in verbs
            pair.client().queuePair().postSend(send(999, outbox, 0, 8));
            WorkCompletion late = bench.client().awaitCompletion(TIMEOUT);
            assertEquals(999, late.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, late.status());
            sink.assertGuardsIntact();
        }
    }
}
