package io.nvmf4j.verbs.wire;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An RDMA Write whose payload leaves out of the registered memory itself (a region registered from a direct
 * ByteBuffer, above the copy threshold) completes only once the socket took all of its bytes: after the
 * completion the memory is the application's again (siw completes a WQE once tcp_sendmsg took it). The peer here
 * reads slowly, so the provider's socket stays full and its write list goes out in parts; the test overwrites each
 * write's source as soon as its completion arrives, and the peer must still get the bytes that were there when
 * the write was posted.
 */
class GatheredWriteToASlowPeerWireTest {
    private static final int WRITES = 4;
    private static final int SIZE = 4 << 20;
    private static final int SINK_STAG = 0x1000;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theSourceOfACompletedGatheredWriteMayBeReusedAtOnce() throws Exception {
        try (WireBench wire = WireBench.open()) {
            ByteBuffer memory = ByteBuffer.allocateDirect(WRITES * SIZE);
            byte[] expected = new byte[WRITES * SIZE];
            for (int i = 0; i < expected.length; i++) {
                expected[i] = (byte) (i * 7 + 3 + (i >>> 16));
            }
            memory.put(0, expected);
            MemoryRegion source = wire.provider().pd().register(memory, EnumSet.of(AccessFlag.LOCAL_WRITE));
            WireBench.Handshake h = wire.handshake(true, null);
            for (int i = 0; i < WRITES; i++) {
                SendWorkRequest write = new SendWorkRequest().wrId(i).opcode(SendOpcode.RDMA_WRITE)
                        .local(source, (long) i * SIZE, SIZE).remote((long) i * SIZE, SINK_STAG);
                h.provider().queuePair().postSend(write);
            }

            byte[] received = new byte[WRITES * SIZE];
            byte[] scribble = new byte[SIZE];
            Arrays.fill(scribble, (byte) 0x5a);
            WorkCompletion[] wc = {new WorkCompletion()};
            int completed = 0;
            long bytes = 0;
            while (bytes < received.length) {
                while (wire.provider().cq().poll(wc) > 0) {
                    assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0]::toString);
                    memory.put((int) wc[0].wrId() * SIZE, scribble); // the application reuses its buffer
                    completed++;
                }
                RawIwarpInitiator.ReceivedFpdu fpdu = h.raw().readFpdu(TIMEOUT);
                assertTrue(fpdu.crcMatches(), "FPDU with a wrong CRC");
                byte[] ulpdu = fpdu.ulpdu();
                assertTrue(DdpSegment.isTagged(ulpdu) && DdpSegment.opcodeOf(ulpdu) == DdpSegment.OP_RDMA_WRITE,
                        "not an RDMA Write segment: opcode " + DdpSegment.opcodeOf(ulpdu));
                ByteBuffer header = ByteBuffer.wrap(ulpdu);
                assertEquals(SINK_STAG, header.getInt(2));
                long to = header.getLong(6);
                int length = ulpdu.length - DdpSegment.TAGGED_HEADER_LENGTH;
                System.arraycopy(ulpdu, DdpSegment.TAGGED_HEADER_LENGTH, received, (int) to, length);
                bytes += length;
            }
            int mismatch = Arrays.mismatch(expected, received);
            assertEquals(-1, mismatch, "the peer got other bytes than the buffer held when the write was posted,"
                    + " first at offset " + mismatch + " (write " + (mismatch / SIZE) + ")");
            for (WorkCompletion c : wire.provider().awaitCompletions(WRITES - completed, TIMEOUT)) {
                assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
            }
        }
    }
}
