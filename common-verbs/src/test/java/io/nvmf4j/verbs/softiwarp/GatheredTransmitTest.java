package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Payloads above the copy threshold of regions registered from direct ByteBuffers leave out of the registered
 * memory itself, gathered with their headers and trailers into one writev (Transmitter): the bytes the peer gets
 * are the application's, in order, with the right pads and CRCs. (That such a work request completes only once the
 * socket took its bytes needs a peer that reads slowly: GatheredWriteToASlowPeerWireTest.)
 */
@Timeout(120)
class GatheredTransmitTest {

    private static SoftiwarpConfig crcOn() {
        SoftiwarpConfig d = SoftiwarpConfig.fromSystemProperties();
        return new SoftiwarpConfig(d.engineSpinNanos(), d.cqSpinNanos(), 1, d.maxFpduPayload(), true, false,
                Duration.ofSeconds(5), SoftiwarpConfig.DEFAULT_COPY_THRESHOLD);
    }

    private static LoopbackPair pair() throws Exception {
        return new LoopbackPair(new SoftiwarpDevice(crcOn()), new SoftiwarpDevice(crcOn()), null, null, new byte[0],
                new byte[0], true);
    }

    @Test
    void writesReadsAndSendsOfOddLengthsOverSeveralBuffersArriveIntactWithCrc() throws Exception {
        try (LoopbackPair p = pair()) {
            assertTrue(((SoftiwarpQueuePair) p.client.queuePair()).crcEnabled);
            MemorySegment client = p.clientMr.segment();
            MemorySegment server = p.serverMr.segment();
            LoopbackPair.fill(client, 0, 1 << 20, 11);
            LoopbackPair.fill(server, 0, 1 << 20, 29);

            // an RDMA Write gathered from three buffers, lengths that need a pad and end mid-FPDU
            SendWorkRequest write = new SendWorkRequest(3).wrId(1).opcode(SendOpcode.RDMA_WRITE)
                    .remote(p.serverMr.address() + 500_001, p.serverMr.rkey());
            write.sgList().count(3);
            write.sgList().get(0).set(p.clientMr, 3, 40_001);
            write.sgList().get(1).set(p.clientMr, 100_000, 70_003);
            write.sgList().get(2).set(p.clientMr, 200_001, 17);
            p.client.queuePair().postSend(write);
            assertSuccess(LoopbackPair.awaitOne(p.clientCq), 1);

            // an RDMA Read: the server answers with Read Responses out of its own buffer, unaligned
            SendWorkRequest read = new SendWorkRequest().wrId(2).opcode(SendOpcode.RDMA_READ)
                    .local(p.clientMr, 700_000, 100_001).remote(p.serverMr.address() + 9, p.serverMr.rkey());
            p.client.queuePair().postSend(read);
            assertSuccess(LoopbackPair.awaitOne(p.clientCq), 2);

            // a Send larger than the copy threshold from two buffers
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(3).local(p.serverMr, 900_000, 20_000));
            SendWorkRequest send = new SendWorkRequest(2).wrId(4).opcode(SendOpcode.SEND);
            send.sgList().count(2);
            send.sgList().get(0).set(p.clientMr, 300_000, 9_999);
            send.sgList().get(1).set(p.clientMr, 310_003, 5_002);
            p.client.queuePair().postSend(send);
            assertSuccess(LoopbackPair.awaitOne(p.clientCq), 4);
            WorkCompletion received = LoopbackPair.awaitOne(p.serverCq);
            assertEquals(WcStatus.SUCCESS, received.status());
            assertEquals(WcOpcode.RECV, received.opcode());
            assertEquals(15_001, received.byteLength());

            assertSame(client, 3, server, 500_001, 40_001);
            assertSame(client, 100_000, server, 540_002, 70_003);
            assertSame(client, 200_001, server, 610_005, 17);
            assertSame(server, 9, client, 700_000, 100_001);
            assertSame(client, 300_000, server, 900_000, 9_999);
            assertSame(client, 310_003, server, 909_999, 5_002);
        }
    }

    /**
     * The outbox is 64 KiB and room is checked per FPDU: ten 4 KiB Sends posted in one chain fill most of it, and the
     * RDMA Write behind them, from a region registered from a segment (copied whatever its size, 65472 bytes per
     * FPDU at the default), must wait for the Sends to leave instead of running past the outbox's end.
     */
    @Test
    void aLargeCopiedWriteBehindABurstOfSendsWaitsForOutboxRoom() throws Exception {
        try (LoopbackPair p = new LoopbackPair(new SoftiwarpDevice(crcOn()), new SoftiwarpDevice(crcOn()), null, null,
                new byte[0], new byte[0], false)) {
            MemorySegment client = p.clientMr.segment();
            MemorySegment server = p.serverMr.segment();
            LoopbackPair.fill(client, 0, 1 << 20, 5);
            int sends = 10;
            for (int i = 0; i < sends; i++) {
                p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(100 + i)
                        .local(p.serverMr, i * 4096L, 4096));
            }
            SendWorkRequest first = null;
            SendWorkRequest last = null;
            for (int i = 0; i < sends; i++) {
                SendWorkRequest send = new SendWorkRequest().wrId(i).opcode(SendOpcode.SEND)
                        .local(p.clientMr, i * 4096L, 4096);
                if (first == null) {
                    first = send;
                } else {
                    last.next(send);
                }
                last = send;
            }
            last.next(new SendWorkRequest().wrId(sends).opcode(SendOpcode.RDMA_WRITE)
                    .local(p.clientMr, 100_000, 200_003).remote(p.serverMr.address() + 300_001, p.serverMr.rkey()));
            p.client.queuePair().postSend(first);

            for (int i = 0; i <= sends; i++) {
                assertSuccess(LoopbackPair.awaitOne(p.clientCq), i);
            }
            for (int i = 0; i < sends; i++) {
                WorkCompletion received = LoopbackPair.awaitOne(p.serverCq);
                assertEquals(WcStatus.SUCCESS, received.status(), received.toString());
                assertEquals(4096, received.byteLength());
            }
            assertSame(client, 0, server, 0, sends * 4096);
            assertSame(client, 100_000, server, 300_001, 200_003);
        }
    }

    private static void assertSuccess(WorkCompletion wc, long wrId) {
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(wrId, wc.wrId(), wc.toString());
    }

    private static void assertSame(MemorySegment from, long fromOffset, MemorySegment to, long toOffset, int length) {
        for (int i = 0; i < length; i++) {
            byte want = from.get(ValueLayout.JAVA_BYTE, fromOffset + i);
            byte got = to.get(ValueLayout.JAVA_BYTE, toOffset + i);
            if (want != got) {
                throw new AssertionError("byte " + i + " of " + length + " differs: " + got + " instead of " + want);
            }
        }
    }
}
