package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.ValueLayout;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CRC and the RFC 6581 peer-to-peer RTR, requested by one side only, as siw's module parameters would. */
@Timeout(30)
class NegotiatedOptionsTest {
    private static SoftiwarpConfig config(boolean crc, boolean p2p) {
        return new SoftiwarpConfig(20_000, 20_000, 1, 1000, crc, p2p, Duration.ofSeconds(5));
    }

    @Test
    void crcAndWriteRtrRequestedByTheInitiatorAreHonouredAndDataFlowsBothWays() throws Exception {
        try (LoopbackPair p = new LoopbackPair(new SoftiwarpDevice(config(false, false)),
                new SoftiwarpDevice(config(true, true)),
                null, null,
                new byte[] {1, 2, 3}, new byte[] {4})) {
            SoftiwarpQueuePair client = (SoftiwarpQueuePair) p.client.queuePair();
            SoftiwarpQueuePair server = (SoftiwarpQueuePair) p.server.queuePair();
            assertTrue(client.crcEnabled, "initiator uses CRC");
            assertTrue(server.crcEnabled, "responder honours the peer's C flag (RFC 5044 7.1)");
            // maxFpduPayload 1000: a 2503-byte Send is 3 FPDUs with pad, each CRC-checked
            LoopbackPair.fill(p.clientMr.segment(), 0, 2503, 9);
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(2).local(p.serverMr, 0, 4096));
            p.client.queuePair().postSend(new SendWorkRequest().wrId(3).opcode(SendOpcode.SEND)
                    .local(p.clientMr, 0, 2503));
            WorkCompletion recv = LoopbackPair.awaitOne(p.serverCq);
            assertEquals(WcStatus.SUCCESS, recv.status(), recv::toString);
            assertEquals(2, recv.wrId());
            assertEquals(2503, recv.byteLength());
            assertEquals(WcStatus.SUCCESS, LoopbackPair.awaitOne(p.clientCq).status());
            LoopbackPair.fill(p.serverMr.segment(), 8192, 3001, 4);
            p.client.queuePair().postSend(new SendWorkRequest().wrId(4).opcode(SendOpcode.RDMA_READ)
                    .local(p.clientMr, 8192, 3001).remote(p.serverMr.address() + 8192, p.serverMr.rkey()));
            WorkCompletion read = LoopbackPair.awaitOne(p.clientCq);
            assertEquals(WcStatus.SUCCESS, read.status(), read::toString);
            assertEquals(WcOpcode.RDMA_READ, read.opcode());
            assertArrayEquals(p.serverMr.segment().asSlice(8192, 3001).toArray(ValueLayout.JAVA_BYTE),
                    p.clientMr.segment().asSlice(8192, 3001).toArray(ValueLayout.JAVA_BYTE));
        }
    }
}
