package io.nvmf4j.verbs.conformance;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static io.nvmf4j.verbs.conformance.WorkRequests.assertSuccess;
import static io.nvmf4j.verbs.conformance.WorkRequests.rdmaRead;
import static io.nvmf4j.verbs.conformance.WorkRequests.rdmaWrite;
import static io.nvmf4j.verbs.conformance.WorkRequests.receive;
import static io.nvmf4j.verbs.conformance.WorkRequests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the local side must check before anything reaches the wire (lkeys, local access rights, SGE limits) and
 * the limits it must honour without failing (ORD: more Reads than may be outstanding are queued, not refused;
 * zero-length operations are legal).
 */
class LocalChecksConformanceTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendFromAnUnknownLkeyFailsLocallyAndDeliversNothing(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion inbox = bench.server().registerOpen(64);
            pair.server().queuePair().postReceive(receive(1, inbox, 0, 64));
            GuardedRegion source = bench.client().registerOpen(64).fill(1);
            SendWorkRequest bad = send(2, source, 0, 64);
            bad.sgList().get(0).lkey(source.lkey() ^ 0x7f7f7f00); // names no region
            try {
                pair.client().queuePair().postSend(bad);
                WorkCompletion wc = bench.client().awaitCompletion(TIMEOUT);
                assertEquals(2, wc.wrId());
                assertEquals(provider.localProtectionStatus(true), wc.status(), wc::toString);
            } catch (VerbsException refused) {
                assertEquals(VerbsErrorCode.INVALID_KEY, refused.code(), refused::getMessage);
            }
            assertNoSuccessfulReceive(bench);
            Patterns.assertSameBytes(new byte[64], inbox.segment(), "receive buffer");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendGatheringPastTheEndOfItsLocalRegionFailsLocally(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion inbox = bench.server().registerOpen(256);
            pair.server().queuePair().postReceive(receive(1, inbox, 0, 256));
            GuardedRegion source = bench.client().registerOpen(64).fill(2);
            SendWorkRequest bad = new SendWorkRequest().wrId(3);
            bad.sgList().count(1).get(0).set(source.address(32), 64, source.lkey()); // 32 bytes past the end
            try {
                pair.client().queuePair().postSend(bad);
                WorkCompletion wc = bench.client().awaitCompletion(TIMEOUT);
                assertEquals(3, wc.wrId());
                assertEquals(provider.localProtectionStatus(false), wc.status(), wc::toString);
            } catch (VerbsException refused) {
                assertEquals(VerbsErrorCode.INVALID_KEY, refused.code(), refused::getMessage);
            }
            assertNoSuccessfulReceive(bench);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void receiveIntoARegionWithoutLocalWriteFailsAndWritesNothing(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion readOnly = bench.server().register(64, AccessFlag.REMOTE_READ);
            GuardedRegion source = bench.client().registerOpen(64).fill(3);
            try {
                pair.server().queuePair().postReceive(receive(1, readOnly, 0, 64));
                pair.client().queuePair().postSend(send(2, source, 0, 64));
                WorkCompletion wc = bench.server().awaitCompletion(TIMEOUT);
                assertEquals(1, wc.wrId());
                assertNotEquals(WcStatus.SUCCESS, wc.status(), wc::toString);
            } catch (VerbsException refused) {
                assertEquals(VerbsErrorCode.INVALID_KEY, refused.code(), refused::getMessage);
            }
            Patterns.assertSameBytes(new byte[64], readOnly.segment(), "region without LOCAL_WRITE");
            readOnly.assertGuardsIntact();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void rdmaReadIntoASinkWithoutLocalWriteFailsAndWritesNothing(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion remote = bench.server().register(64, AccessFlag.REMOTE_READ).fill(4);
            GuardedRegion sink = bench.client().register(64, AccessFlag.REMOTE_READ);
            try {
                pair.client().queuePair().postSend(rdmaRead(1, sink, 0, 64, remote.address(0), remote.rkey()));
                WorkCompletion wc = bench.client().awaitCompletion(TIMEOUT);
                assertEquals(1, wc.wrId());
                assertEquals(WcStatus.LOC_PROT_ERR, wc.status(), wc::toString);
            } catch (VerbsException refused) {
                assertEquals(VerbsErrorCode.INVALID_KEY, refused.code(), refused::getMessage);
            }
            Patterns.assertSameBytes(new byte[64], sink.segment(), "sink without LOCAL_WRITE");
            sink.assertGuardsIntact();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void workRequestWithMoreSgesThanTheQueuePairAllowsIsRefusedAtPost(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            QueuePairAttributes two = QueuePairAttributes.defaults().withSge(2, 2);
            Loopback.Pair pair = bench.connect(two, two);
            int maxSend = pair.client().queuePair().attributes().maxSendSge();
            int maxRecv = pair.server().queuePair().attributes().maxRecvSge();
            GuardedRegion buffer = bench.client().registerOpen(4096);
            SendWorkRequest tooMany = new SendWorkRequest(maxSend + 1).wrId(1);
            tooMany.sgList().count(maxSend + 1);
            for (int i = 0; i <= maxSend; i++) {
                tooMany.sgList().get(i).set(buffer.region(), i * 16L, 16);
            }
            VerbsException refused = assertThrows(VerbsException.class,
                    () -> pair.client().queuePair().postSend(tooMany));
            assertEquals(VerbsErrorCode.INVALID_ARGUMENT, refused.code(), refused::getMessage);

            GuardedRegion inbox = bench.server().registerOpen(4096);
            ReceiveWorkRequest recv = new ReceiveWorkRequest(maxRecv + 1).wrId(2);
            recv.sgList().count(maxRecv + 1);
            for (int i = 0; i <= maxRecv; i++) {
                recv.sgList().get(i).set(inbox.region(), i * 16L, 16);
            }
            VerbsException refusedRecv = assertThrows(VerbsException.class,
                    () -> pair.server().queuePair().postReceive(recv));
            assertEquals(VerbsErrorCode.INVALID_ARGUMENT, refusedRecv.code(), refusedRecv::getMessage);
            bench.client().assertNoCompletion(Duration.ofMillis(50));
            bench.server().assertNoCompletion(Duration.ofMillis(50));
            assertTrue(pair.client().isConnected() && pair.server().isConnected());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void rdmaReadWithMoreSinkSgesThanMaxSgeRdIsRefusedOrScatteredCorrectly(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            int maxSgeRd = bench.device().attributes().maxSgeRd();
            GuardedRegion remote = bench.server().register(300, AccessFlag.REMOTE_READ).fill(5);
            GuardedRegion sink = bench.client().registerOpen(4096);
            SendWorkRequest read = new SendWorkRequest(2).wrId(1).opcode(SendOpcode.RDMA_READ)
                    .remote(remote.address(0), remote.rkey());
            read.sgList().count(2);
            read.sgList().get(0).set(sink.region(), 0, 100);
            read.sgList().get(1).set(sink.region(), 1000, 200);
            if (maxSgeRd < 2) {
                // Linux siw reports max_sge_rd 1 and silently fills only the first sink SGE (interop/): refuse instead
                VerbsException refused = assertThrows(VerbsException.class,
                        () -> pair.client().queuePair().postSend(read));
                assertEquals(VerbsErrorCode.INVALID_ARGUMENT, refused.code(), refused::getMessage);
                bench.client().assertNoCompletion(Duration.ofMillis(50));
            } else {
                pair.client().queuePair().postSend(read);
                WorkCompletion wc = bench.client().awaitCompletion(TIMEOUT);
                assertSuccess(wc, 1, WcOpcode.RDMA_READ);
                assertEquals(300, wc.byteLength());
                Patterns.assertSameBytes(remote.segment().asSlice(0, 100), sink.segment().asSlice(0, 100), "SGE 0");
                Patterns.assertSameBytes(remote.segment().asSlice(100, 200), sink.segment().asSlice(1000, 200),
                        "SGE 1");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void moreRdmaReadsThanTheOrdAreQueuedAndAllComplete(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            QueuePairAttributes ordTwo = QueuePairAttributes.defaults().withReadDepths(2, 2);
            Loopback.Pair pair = bench.connect(ordTwo, ordTwo);
            int reads = 32;
            int chunk = 64 * 1024;
            GuardedRegion remote = bench.server().register((long) reads * chunk, AccessFlag.REMOTE_READ).fill(6);
            GuardedRegion sink = bench.client().registerOpen((long) reads * chunk);
            for (int i = 0; i < reads; i++) {
                pair.client().queuePair().postSend(rdmaRead(i, sink, (long) i * chunk, chunk,
                        remote.address((long) i * chunk), remote.rkey()));
            }
            List<WorkCompletion> done = bench.client().awaitCompletions(reads, TIMEOUT);
            for (int i = 0; i < reads; i++) {
                assertSuccess(done.get(i), i, WcOpcode.RDMA_READ);
            }
            Patterns.assertSameBytes(remote.segment(), sink.segment(), "32 Reads through an ORD of 2");
            assertTrue(pair.client().isConnected(), "exceeding the ORD by posting must not break the connection");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void zeroLengthSendWriteAndReadComplete(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion inbox = bench.server().registerOpen(64);
            GuardedRegion remote = bench.server().registerOpen(64);
            GuardedRegion local = bench.client().registerOpen(64).fill(7);
            pair.server().queuePair().postReceive(receive(1, inbox, 0, 64));
            SendWorkRequest write = WorkRequests.rdmaWrite(10, local, 0, 0, remote.address(0), remote.rkey());
            write.next(rdmaRead(11, local, 0, 0, remote.address(0), remote.rkey())).next().next(send(12, local, 0, 0));
            pair.client().queuePair().postSend(write);
            List<WorkCompletion> done = new ArrayList<>(bench.client().awaitCompletions(3, TIMEOUT));
            done.sort(Comparator.comparingLong(WorkCompletion::wrId)); // a Read may complete last
            assertSuccess(done.get(0), 10, WcOpcode.RDMA_WRITE);
            assertSuccess(done.get(1), 11, WcOpcode.RDMA_READ);
            assertEquals(0, done.get(1).byteLength());
            assertSuccess(done.get(2), 12, WcOpcode.SEND);
            WorkCompletion recv = bench.server().awaitCompletion(TIMEOUT);
            assertSuccess(recv, 1, WcOpcode.RECV);
            assertEquals(0, recv.byteLength());
            Patterns.assertSameBytes(new byte[64], remote.segment(), "target of a zero-length write");
            Patterns.assertSameBytes(new byte[64], inbox.segment(), "receive of a zero-length send");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void completionQueueTooSmallForItsCompletionsReportsOverflowInsteadOfDroppingThemSilently(
            ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider, 4)) {
            Loopback.Pair pair = bench.connect();
            int capacity = bench.client().cq().capacity();
            assertTrue(capacity >= 4, "capacity " + capacity + " below the 4 entries asked for");
            // signaled RDMA Writes: only the client's CQ takes completions (with Sends the server's equally small
            // CQ overflowed first, and rxe's responder stopped acknowledging, so the client's never filled)
            int writes = capacity + 8;
            GuardedRegion target = bench.server().registerOpen(writes * 8L);
            GuardedRegion outbox = bench.client().registerOpen(8).fill(8);
            for (int i = 0; i < writes; i++) {
                pair.client().queuePair().postSend(rdmaWrite(i, outbox, 0, 8, target.address(i * 8L),
                        target.rkey()));
            }
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!bench.client().cq().overflowed() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(bench.client().cq().overflowed(), capacity + "-entry CQ took " + writes
                    + " completions without reporting an overflow");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void registrationOfHeapMemoryOrRemoteWriteWithoutLocalWriteIsRefused(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            var pd = bench.server().pd();
            VerbsException heap = assertThrows(VerbsException.class,
                    () -> pd.register(MemorySegment.ofArray(new byte[4096]),
                            EnumSet.of(AccessFlag.LOCAL_WRITE)));
            assertEquals(VerbsErrorCode.INVALID_ARGUMENT, heap.code(), heap::getMessage);
            var segment = bench.arena().allocate(4096);
            VerbsException remoteOnly = assertThrows(VerbsException.class,
                    () -> pd.register(segment, EnumSet.of(AccessFlag.REMOTE_WRITE)));
            assertEquals(VerbsErrorCode.INVALID_ARGUMENT, remoteOnly.code(), remoteOnly::getMessage);
            VerbsException empty = assertThrows(VerbsException.class,
                    () -> pd.register(segment.asSlice(0, 0), EnumSet.of(AccessFlag.LOCAL_WRITE)));
            assertEquals(VerbsErrorCode.INVALID_ARGUMENT, empty.code(), empty::getMessage);
        }
    }

    /** The server's receive does not complete successfully (flushed, failed, or not at all within 300 ms). */
    private static void assertNoSuccessfulReceive(Loopback bench) throws InterruptedException {
        WorkCompletion[] out = {new WorkCompletion()};
        int n = bench.server().cq().await(out, 300, TimeUnit.MILLISECONDS);
        if (n == 1) {
            assertNotEquals(WcStatus.SUCCESS, out[0].status(), () -> "the peer received data: " + out[0]);
        }
    }
}
