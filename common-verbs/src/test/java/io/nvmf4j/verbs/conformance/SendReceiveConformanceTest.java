package io.nvmf4j.verbs.conformance;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static io.nvmf4j.verbs.conformance.WorkRequests.assertSuccess;
import static io.nvmf4j.verbs.conformance.WorkRequests.receive;
import static io.nvmf4j.verbs.conformance.WorkRequests.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.QueuePairState;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Two-sided operations: Send into posted receives (RFC 5040, 5.3; verbs ibv_post_send/ibv_post_recv). */
class SendReceiveConformanceTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendGatheredFromThreeSgesIsScatteredIntoThreeReceiveSges(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            QueuePairAttributes attributes = QueuePairAttributes.defaults().withSge(3, 3);
            Loopback.Pair pair = bench.connect(attributes, attributes);
            GuardedRegion source = bench.client().registerOpen(4096).fill(11);
            GuardedRegion sink = bench.server().registerOpen(4096);

            ReceiveWorkRequest recv = new ReceiveWorkRequest(3).wrId(77);
            recv.sgList().count(3);
            recv.sgList().get(0).set(sink.region(), 10, 40);
            recv.sgList().get(1).set(sink.region(), 500, 100);
            recv.sgList().get(2).set(sink.region(), 3000, 500);
            pair.server().queuePair().postReceive(recv);

            SendWorkRequest sendWr = new SendWorkRequest(3).wrId(5);
            sendWr.sgList().count(3);
            sendWr.sgList().get(0).set(source.region(), 0, 100);
            sendWr.sgList().get(1).set(source.region(), 1000, 300);
            sendWr.sgList().get(2).set(source.region(), 2048, 37);
            pair.client().queuePair().postSend(sendWr);

            assertSuccess(bench.client().awaitCompletion(TIMEOUT), 5, WcOpcode.SEND);
            WorkCompletion wc = bench.server().awaitCompletion(TIMEOUT);
            assertSuccess(wc, 77, WcOpcode.RECV);
            assertEquals(437, wc.byteLength());
            assertEquals(pair.server().queuePair().number(), wc.queuePairNumber());

            byte[] sent = new byte[437];
            MemorySegment.copy(source.segment(), ValueLayout.JAVA_BYTE, 0, sent, 0, 100);
            MemorySegment.copy(source.segment(), ValueLayout.JAVA_BYTE, 1000, sent, 100, 300);
            MemorySegment.copy(source.segment(), ValueLayout.JAVA_BYTE, 2048, sent, 400, 37);
            byte[] expected = new byte[4096];
            System.arraycopy(sent, 0, expected, 10, 40);
            System.arraycopy(sent, 40, expected, 500, 100);
            System.arraycopy(sent, 140, expected, 3000, 297);
            Patterns.assertSameBytes(expected, sink.segment(), "receive region after a 3-SGE send into 3 SGEs");
            sink.assertGuardsIntact();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendsArriveInTheOrderPostedAndFillReceivesInTheOrderPosted(ProviderUnderTest provider) throws Exception {
        int messages = 64;
        int slot = 128;
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion source = bench.client().registerOpen((long) messages * slot);
            GuardedRegion sink = bench.server().registerOpen((long) messages * slot);
            for (int i = 0; i < messages; i++) {
                pair.server().queuePair().postReceive(receive(1000 + i, sink, (long) i * slot, slot));
            }
            for (int i = 0; i < messages; i++) {
                // message i: its number, then a pattern; its length varies so a mix-up shows in byteLength too
                MemorySegment message = source.segment().asSlice((long) i * slot, slot);
                Patterns.fill(message, 500 + i);
                message.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                SendWorkRequest wr = send(i, source, (long) i * slot, 16 + i).signaled(i == messages - 1);
                pair.client().queuePair().postSend(wr);
            }
            assertSuccess(bench.client().awaitCompletion(TIMEOUT), messages - 1, WcOpcode.SEND);
            List<WorkCompletion> received = bench.server().awaitCompletions(messages, TIMEOUT);
            for (int i = 0; i < messages; i++) {
                WorkCompletion wc = received.get(i);
                assertSuccess(wc, 1000 + i, WcOpcode.RECV);
                assertEquals(16 + i, wc.byteLength(), "length of message " + i);
                MemorySegment got = sink.segment().asSlice((long) i * slot, 16 + i);
                Patterns.assertSameBytes(source.segment().asSlice((long) i * slot, 16 + i), got,
                        "receive " + i + " holds message " + i);
            }
            bench.client().assertNoCompletion(Duration.ofMillis(100));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendWithNoPostedReceiveErrorsTheReceiverAndTerminatesTheSender(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion source = bench.client().registerOpen(64).fill(3);
            pair.client().queuePair().postSend(send(9, source, 0, 64));

            // The sender's completion first: on InfiniBand/RoCE nothing else tells it (rxe answers with RNR NAKs,
            // the sender's retries run out, RNR_RETRY_EXC_ERR, and the receiver's QP stays healthy until the
            // sender's provider ends the connection on that completion). iWARP completes a Send once it is on the
            // wire, so there the sender's completion may be a success and the Terminate breaks both sides.
            WorkCompletion sent = bench.client().awaitCompletion(TIMEOUT);
            assertEquals(9, sent.wrId());
            assertTrue(sent.status() == WcStatus.SUCCESS || sent.status() == WcStatus.WR_FLUSH_ERR
                    || sent.status() == WcStatus.REM_OP_ERR || sent.status() == WcStatus.REM_INV_REQ_ERR
                    || sent.status() == WcStatus.RNR_RETRY_EXC_ERR, () -> "send completion " + sent);

            DisconnectEvent receiverEnd = Loopback.awaitDisconnect(pair.server());
            DisconnectEvent senderEnd = Loopback.awaitDisconnect(pair.client());
            if (provider.seesTerminates()) {
                assertEquals(DisconnectEvent.Cause.TERMINATE_SENT, receiverEnd.cause(), receiverEnd.detail());
                assertEquals(DisconnectEvent.Cause.TERMINATE_RECEIVED, senderEnd.cause(), senderEnd.detail());
            }
            assertEquals(QueuePairState.ERROR, pair.server().queuePair().state());
            assertEquals(QueuePairState.ERROR, pair.client().queuePair().state());

            // the receiver's queue pair is in error: a receive posted now is flushed, not left hanging
            GuardedRegion sink = bench.server().registerOpen(64);
            pair.server().queuePair().postReceive(receive(10, sink, 0, 64));
            WorkCompletion flushed = bench.server().awaitCompletion(TIMEOUT);
            assertEquals(10, flushed.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
            Patterns.assertSameBytes(new byte[64], sink.segment(), "receive buffer of a flushed receive");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendLongerThanThePostedReceiveCompletesItWithLengthErrorAndWritesNothingPastIt(
            ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion source = bench.client().registerOpen(4096).fill(21);
            GuardedRegion sink = bench.server().registerOpen(4096);
            pair.server().queuePair().postReceive(receive(1, sink, 1024, 64));
            pair.client().queuePair().postSend(send(2, source, 0, 4096));

            WorkCompletion wc = bench.server().awaitCompletion(TIMEOUT);
            assertEquals(1, wc.wrId());
            assertEquals(provider.receiveTooShortStatus(), wc.status(), () -> "receive completion " + wc);
            byte[] outside = sink.snapshot();
            Arrays.fill(outside, 1024, 1024 + 64, (byte) 0); // the receive buffer itself may be written
            Patterns.assertSameBytes(new byte[4096], MemorySegment.ofArray(outside),
                    "receive region outside the 64-byte receive buffer");
            sink.assertGuardsIntact();
            Loopback.awaitDisconnect(pair.client());
            Loopback.awaitDisconnect(pair.server());
        }
    }
}
