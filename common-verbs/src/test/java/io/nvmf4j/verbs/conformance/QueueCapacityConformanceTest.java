package io.nvmf4j.verbs.conformance;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static io.nvmf4j.verbs.conformance.WorkRequests.assertSuccess;
import static io.nvmf4j.verbs.conformance.WorkRequests.receive;
import static io.nvmf4j.verbs.conformance.WorkRequests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The capacity of the queues under a connection: posting past a work queue's depth fails with QUEUE_FULL and
 * loses nothing already posted, and one completion queue per side serves many connections, each completion
 * naming its queue pair.
 */
class QueueCapacityConformanceTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void thirtyTwoConnectionsShareOneCompletionQueuePerSideAndCompletionsCarryTheirQueuePairNumber(
            ProviderUnderTest provider) throws Exception {
        int connections = 32;
        try (Loopback bench = Loopback.open(provider, 256)) {
            QueuePairAttributes small = QueuePairAttributes.defaults().withQueueDepths(4, 4);
            Loopback.Pair[] pairs = new Loopback.Pair[connections];
            for (int i = 0; i < connections; i++) {
                pairs[i] = bench.connect(small, small);
            }
            GuardedRegion outbox = bench.client().registerOpen(connections * 8L);
            GuardedRegion inbox = bench.server().registerOpen(connections * 8L);
            Map<Integer, Integer> serverQpToIndex = new HashMap<>();
            Map<Integer, Integer> clientQpToIndex = new HashMap<>();
            for (int i = 0; i < connections; i++) {
                assertEquals(null, serverQpToIndex.put(pairs[i].server().queuePair().number(), i),
                        "queue pair numbers are unique");
                assertEquals(null, clientQpToIndex.put(pairs[i].client().queuePair().number(), i),
                        "queue pair numbers are unique");
                pairs[i].server().queuePair().postReceive(receive(i, inbox, i * 8L, 8));
            }
            // send in reverse order so CQ order differs from connection order
            for (int i = connections - 1; i >= 0; i--) {
                outbox.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, i * 8L, 0x5eed0000L + i);
                pairs[i].client().queuePair().postSend(send(1000 + i, outbox, i * 8L, 8));
            }
            for (WorkCompletion wc : bench.server().awaitCompletions(connections, TIMEOUT)) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString);
                Integer index = serverQpToIndex.get(wc.queuePairNumber());
                assertNotNull(index, () -> "completion with an unknown queue pair number: " + wc);
                assertEquals((long) index, wc.wrId(), () -> "receive of connection " + index + " completed as " + wc);
                assertEquals(0x5eed0000L + index,
                        inbox.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, index * 8L),
                        "message in the receive buffer of connection " + index);
            }
            for (WorkCompletion wc : bench.client().awaitCompletions(connections, TIMEOUT)) {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString);
                Integer index = clientQpToIndex.get(wc.queuePairNumber());
                assertNotNull(index, () -> "completion with an unknown queue pair number: " + wc);
                assertEquals(1000L + index, wc.wrId(), wc::toString);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void postingMoreReceivesThanTheReceiveQueueHoldsFailsWithQueueFull(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            QueuePairAttributes eight = QueuePairAttributes.defaults().withQueueDepths(8, 8);
            Loopback.Pair pair = bench.connect(eight, eight);
            int depth = pair.server().queuePair().attributes().maxRecvWr();
            assertTrue(depth >= 8, "granted receive queue depth " + depth);
            GuardedRegion inbox = bench.server().registerOpen((depth + 1) * 16L);
            for (int i = 0; i < depth; i++) {
                pair.server().queuePair().postReceive(receive(i, inbox, i * 16L, 16));
            }
            VerbsException full = assertThrows(VerbsException.class,
                    () -> pair.server().queuePair().postReceive(receive(depth, inbox, depth * 16L, 16)));
            assertEquals(VerbsErrorCode.QUEUE_FULL, full.code(), full::getMessage);

            // nothing was lost: the first receive takes the next message, and its slot can be reused after
            GuardedRegion outbox = bench.client().registerOpen(16).fill(44);
            pair.client().queuePair().postSend(send(1, outbox, 0, 16));
            assertSuccess(bench.server().awaitCompletion(TIMEOUT), 0, WcOpcode.RECV);
            Patterns.assertSameBytes(outbox.segment(), inbox.segment().asSlice(0, 16), "first receive");
            pair.server().queuePair().postReceive(receive(depth, inbox, depth * 16L, 16));
            assertTrue(pair.server().isConnected());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void postingAChainLongerThanTheSendQueueFailsWithQueueFullAndPostsNothing(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            QueuePairAttributes eight = QueuePairAttributes.defaults().withQueueDepths(8, 8);
            Loopback.Pair pair = bench.connect(eight, eight);
            int depth = pair.client().queuePair().attributes().maxSendWr();
            GuardedRegion inbox = bench.server().registerOpen(8 * 16L);
            for (int i = 0; i < 8; i++) {
                pair.server().queuePair().postReceive(receive(i, inbox, i * 16L, 16));
            }
            GuardedRegion outbox = bench.client().registerOpen(16).fill(45);
            SendWorkRequest chain = send(0, outbox, 0, 16);
            SendWorkRequest last = chain;
            for (int i = 1; i <= depth; i++) {
                SendWorkRequest next = send(i, outbox, 0, 16);
                last.next(next);
                last = next;
            }
            VerbsException full = assertThrows(VerbsException.class, () -> pair.client().queuePair().postSend(chain));
            assertEquals(VerbsErrorCode.QUEUE_FULL, full.code(), full::getMessage);
            bench.server().assertNoCompletion(Duration.ofMillis(200));
            bench.client().assertNoCompletion(Duration.ofMillis(10));

            pair.client().queuePair().postSend(send(100, outbox, 0, 16));
            assertSuccess(bench.client().awaitCompletion(TIMEOUT), 100, WcOpcode.SEND);
            assertSuccess(bench.server().awaitCompletion(TIMEOUT), 0, WcOpcode.RECV);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void postingBeyondTheSendQueueDepthFailsWithQueueFullAndLosesNothing(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            QueuePairAttributes four = QueuePairAttributes.defaults().withQueueDepths(4, 4);
            Loopback.Pair pair = bench.connect(four, four);
            int depth = pair.client().queuePair().attributes().maxSendWr();
            int size = 8 << 20;
            GuardedRegion remote = bench.server().register(size, AccessFlag.REMOTE_READ).fill(46);
            GuardedRegion sink = bench.client().registerOpen(size);
            int accepted = 0;
            VerbsException full = null;
            // 8 MiB Reads take milliseconds, a post microseconds: the queue fills before the first completes
            for (int attempt = 0; attempt < 16 * depth && full == null; attempt++) {
                try {
                    pair.client().queuePair().postSend(
                            WorkRequests.rdmaRead(attempt, sink, 0, size, remote.address(0), remote.rkey()));
                    accepted++;
                } catch (VerbsException e) {
                    full = e;
                }
            }
            assertNotNull(full, "posted " + accepted + " 8 MiB RDMA Reads on a send queue of depth " + depth
                    + " without a QUEUE_FULL");
            assertEquals(VerbsErrorCode.QUEUE_FULL, full.code(), full.getMessage());
            assertTrue(accepted >= depth, "only " + accepted + " accepted before QUEUE_FULL, depth " + depth);
            List<WorkCompletion> done = bench.client().awaitCompletions(accepted, TIMEOUT);
            for (int i = 0; i < accepted; i++) {
                assertSuccess(done.get(i), i, WcOpcode.RDMA_READ);
            }
            Patterns.assertSameBytes(remote.segment(), sink.segment(), "bytes of the last read");
            bench.client().assertNoCompletion(Duration.ofMillis(100));
        }
    }
}
