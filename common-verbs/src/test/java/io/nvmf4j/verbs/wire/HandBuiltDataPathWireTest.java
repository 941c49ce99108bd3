package io.nvmf4j.verbs.wire;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static io.nvmf4j.verbs.conformance.WorkRequests.assertSuccess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.QueuePairSetup;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WorkCompletion;
import io.nvmf4j.verbs.conformance.GuardedRegion;
import io.nvmf4j.verbs.conformance.Patterns;
import io.nvmf4j.verbs.conformance.WorkRequests;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Valid hand-built FPDUs are accepted and placed exactly, and the provider's own FPDUs parse with the layouts
 * of RFC 5040/5041/5044: the proof that the hand-built bytes of the negative tests are right, so that a
 * Terminate there answers the one field made wrong.
 */
class HandBuiltDataPathWireTest {

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void handBuiltRdmaWritesAndSendsArePlacedAndCompleteTheReceives(boolean crc) throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion target = wire.provider().registerOpen(4096);
            GuardedRegion inbox = wire.provider().registerOpen(4096);
            WireBench.Handshake h = wire.handshake(crc, qp -> {
                qp.postReceive(WorkRequests.receive(7, inbox, 0, 256));
                qp.postReceive(WorkRequests.receive(8, inbox, 1024, 2048));
            });
            byte[] written = Patterns.bytes(1, 1000);
            byte[] first = Patterns.bytes(2, 32);
            byte[] second = Patterns.bytes(3, 2000);

            // one RDMA Write in a single segment, one in two tagged segments (RFC 5041, 5.2: TO advances)
            h.raw().sendFpdu(DdpSegment.rdmaWrite(target.rkey(), target.address(100), written));
            h.raw().sendFpdu(DdpSegment.tagged(DdpSegment.control(true, false, DdpSegment.OP_RDMA_WRITE),
                    target.rkey(), target.address(2000), Arrays.copyOfRange(written, 0, 600)));
            h.raw().sendFpdu(DdpSegment.tagged(DdpSegment.control(true, true, DdpSegment.OP_RDMA_WRITE),
                    target.rkey(), target.address(2600), Arrays.copyOfRange(written, 600, 1000)));
            // a Send in one segment (MSN 1), then one in two untagged segments (MSN 2, MO 0 and 1500)
            h.raw().sendFpdu(DdpSegment.send(h.raw().takeSendMsn(), first));
            int msn = h.raw().takeSendMsn();
            h.raw().sendFpdu(DdpSegment.untagged(DdpSegment.control(false, false, DdpSegment.OP_SEND), 0,
                    DdpSegment.QN_SEND, msn, 0, Arrays.copyOfRange(second, 0, 1500)));
            h.raw().sendFpdu(DdpSegment.untagged(DdpSegment.control(false, true, DdpSegment.OP_SEND), 0,
                    DdpSegment.QN_SEND, msn, 1500, Arrays.copyOfRange(second, 1500, 2000)));

            WorkCompletion one = wire.provider().awaitCompletion(TIMEOUT);
            assertSuccess(one, 7, WcOpcode.RECV);
            assertEquals(32, one.byteLength());
            assertEquals(h.provider().queuePair().number(), one.queuePairNumber());
            WorkCompletion two = wire.provider().awaitCompletion(TIMEOUT);
            assertSuccess(two, 8, WcOpcode.RECV);
            assertEquals(2000, two.byteLength());

            byte[] expectedTarget = new byte[4096];
            System.arraycopy(written, 0, expectedTarget, 100, 1000);
            System.arraycopy(written, 0, expectedTarget, 2000, 1000);
            Patterns.assertSameBytes(expectedTarget, target.segment(), "region after three hand-built Write FPDUs");
            byte[] expectedInbox = new byte[4096];
            System.arraycopy(first, 0, expectedInbox, 0, 32);
            System.arraycopy(second, 0, expectedInbox, 1024, 2000);
            Patterns.assertSameBytes(expectedInbox, inbox.segment(), "receive buffers after hand-built Sends");
            target.assertGuardsIntact();
            inbox.assertGuardsIntact();
            assertTrue(h.provider().isConnected(), "valid FPDUs broke the connection");
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void handBuiltReadRequestIsAnsweredWithReadResponsesCarryingTheRegionBytes(boolean crc) throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion source = wire.provider().register(100_000, AccessFlag.REMOTE_READ).fill(4);
            WireBench.Handshake h = wire.handshake(crc, QueuePairSetup.NONE);
            int size = 70_000; // more than one FPDU's worth: the response comes in several tagged segments
            int sinkStag = 0x00c0ffee;
            long sinkTo = 0x7000_0000_0000L;
            h.raw().sendFpdu(DdpSegment.readRequest(h.raw().takeReadRequestMsn(), sinkStag, sinkTo, size,
                    source.rkey(), source.address(50)));

            ByteBuffer response = ByteBuffer.allocate(size);
            boolean last = false;
            while (!last) {
                RawIwarpInitiator.ReceivedFpdu fpdu = h.raw().readFpdu(TIMEOUT);
                assertTrue(fpdu.crcMatches(), "CRC of a Read Response FPDU from the provider");
                byte[] ulpdu = fpdu.ulpdu();
                int control = DdpSegment.controlOf(ulpdu);
                assertEquals(DdpSegment.OP_READ_RESPONSE, control & 0xf, "opcode of the answer to a Read Request");
                assertTrue(DdpSegment.isTagged(ulpdu), "Read Responses are tagged (RFC 5040, 4.5)");
                assertEquals(DdpSegment.DDP_VERSION_1 | DdpSegment.RDMAP_VERSION_1, control & 0x03c0, "versions");
                ByteBuffer header = ByteBuffer.wrap(ulpdu);
                header.getShort();
                assertEquals(sinkStag, header.getInt(), "Read Response sink STag");
                assertEquals(sinkTo + response.position(), header.getLong(), "Read Response TO is contiguous");
                response.put(ulpdu, DdpSegment.TAGGED_HEADER_LENGTH, ulpdu.length - DdpSegment.TAGGED_HEADER_LENGTH);
                last = (control & DdpSegment.LAST) != 0;
            }
            assertEquals(size, response.position(), "bytes in the Read Response");
            Patterns.assertSameBytes(source.segment().asSlice(50, size), MemorySegment.ofArray(response.array()),
                    "Read Response payload");
            assertTrue(h.provider().isConnected());
            wire.provider().assertNoCompletion(Duration.ofMillis(50));
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void providerFpdusParseAndAHandBuiltReadResponseCompletesItsRdmaRead(boolean crc) throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion inbox = wire.provider().registerOpen(64);
            GuardedRegion local = wire.provider().registerOpen(8192).fill(5);
            WireBench.Handshake h = wire.handshake(crc, WireBench.postReceive(1, inbox, 0, 64));
            // RFC 5044, 7.1: the initiator's FPDU goes first
            h.raw().sendFpdu(DdpSegment.send(h.raw().takeSendMsn(), new byte[8]));
            assertSuccess(wire.provider().awaitCompletion(TIMEOUT), 1, WcOpcode.RECV);

            // the provider's Send: untagged, QN 0, MSN 1, MO 0
            h.provider().queuePair().postSend(WorkRequests.send(2, local, 0, 300));
            byte[] send = h.raw().readFpdu(TIMEOUT).ulpdu();
            ByteBuffer s = ByteBuffer.wrap(send);
            assertEquals(DdpSegment.control(false, true, DdpSegment.OP_SEND), s.getShort() & 0xffff, "Send control");
            s.getInt();
            assertEquals(DdpSegment.QN_SEND, s.getInt(), "Send QN");
            assertEquals(1, s.getInt(), "first Send MSN");
            assertEquals(0, s.getInt(), "Send MO");
            Patterns.assertSameBytes(local.segment().asSlice(0, 300),
                    MemorySegment.ofArray(Arrays.copyOfRange(send, 18, send.length)), "Send payload");
            assertSuccess(wire.provider().awaitCompletion(TIMEOUT), 2, WcOpcode.SEND);

            // the provider's RDMA Write: tagged, to the STag/TO it was given
            h.provider().queuePair().postSend(
                    WorkRequests.rdmaWrite(3, local, 1000, 500, 0x1234_5678_9000L, 0x00abcd01));
            byte[] write = h.raw().readFpdu(TIMEOUT).ulpdu();
            ByteBuffer w = ByteBuffer.wrap(write);
            assertEquals(DdpSegment.control(true, true, DdpSegment.OP_RDMA_WRITE), w.getShort() & 0xffff);
            assertEquals(0x00abcd01, w.getInt(), "Write sink STag");
            assertEquals(0x1234_5678_9000L, w.getLong(), "Write sink TO");
            Patterns.assertSameBytes(local.segment().asSlice(1000, 500),
                    MemorySegment.ofArray(Arrays.copyOfRange(write, 14, write.length)), "Write payload");
            assertSuccess(wire.provider().awaitCompletion(TIMEOUT), 3, WcOpcode.RDMA_WRITE);

            // the provider's RDMA Read: a Read Request on QN 1 naming its sink; we answer by hand
            h.provider().queuePair().postSend(WorkRequests.rdmaRead(4, local, 4096, 1000, 0x5555_0000L, 0x00beef02));
            byte[] request = h.raw().readFpdu(TIMEOUT).ulpdu();
            ByteBuffer r = ByteBuffer.wrap(request);
            assertEquals(DdpSegment.control(false, true, DdpSegment.OP_READ_REQUEST), r.getShort() & 0xffff);
            r.getInt();
            assertEquals(DdpSegment.QN_READ_REQUEST, r.getInt(), "Read Request QN");
            assertEquals(1, r.getInt(), "first Read Request MSN");
            assertEquals(0, r.getInt(), "Read Request MO");
            int sinkStag = r.getInt();
            long sinkTo = r.getLong();
            assertEquals(1000, r.getInt(), "Read size");
            assertEquals(0x00beef02, r.getInt(), "source STag");
            assertEquals(0x5555_0000L, r.getLong(), "source TO");
            byte[] answer = Patterns.bytes(6, 1000);
            h.raw().sendFpdu(DdpSegment.tagged(DdpSegment.control(true, true, DdpSegment.OP_READ_RESPONSE),
                    sinkStag, sinkTo, answer));
            WorkCompletion read = wire.provider().awaitCompletion(TIMEOUT);
            assertSuccess(read, 4, WcOpcode.RDMA_READ);
            assertEquals(1000, read.byteLength());
            Patterns.assertSameBytes(answer, local.segment().asSlice(4096, 1000), "hand-built Read Response placed");
            local.assertGuardsIntact();
            assertTrue(h.provider().isConnected(), "connection broke on valid traffic");
        }
    }
}
