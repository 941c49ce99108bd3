package io.nvmf4j.verbs.wire;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static io.nvmf4j.verbs.conformance.WorkRequests.assertSuccess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePairSetup;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import io.nvmf4j.verbs.conformance.GuardedRegion;
import io.nvmf4j.verbs.conformance.Loopback;
import io.nvmf4j.verbs.conformance.Patterns;
import io.nvmf4j.verbs.conformance.WorkRequests;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TCP is a byte stream: FPDUs arrive split at any byte and coalesced with others, a peer may stop reading, and
 * a peer may send its own Terminate. The provider's framing must not care, and one slow peer must not stall
 * the progress engine for other connections.
 */
class StreamHandlingWireTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void fpdusTricklingInOneByteAtATimeArePlacedLikeWholeOnes() throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion target = wire.provider().registerOpen(512);
            GuardedRegion inbox = wire.provider().registerOpen(64);
            WireBench.Handshake h = wire.handshake(true, WireBench.postReceive(1, inbox, 0, 64));
            byte[] written = Patterns.bytes(1, 301);
            byte[] message = Patterns.bytes(2, 33);
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            stream.write(Fpdu.frame(DdpSegment.rdmaWrite(target.rkey(), target.address(7), written), true));
            stream.write(Fpdu.frame(DdpSegment.send(h.raw().takeSendMsn(), message), true));
            for (byte b : stream.toByteArray()) {
                h.raw().write(new byte[] {b});
            }
            WorkCompletion wc = wire.provider().awaitCompletion(TIMEOUT);
            assertSuccess(wc, 1, WcOpcode.RECV);
            assertEquals(33, wc.byteLength());
            Patterns.assertSameBytes(written, target.segment().asSlice(7, 301), "trickled RDMA Write");
            Patterns.assertSameBytes(message, inbox.segment().asSlice(0, 33), "trickled Send");
            target.assertGuardsIntact();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void manyFpdusCoalescedIntoOneTcpWriteAreAllProcessedInOrder() throws Exception {
        try (WireBench wire = WireBench.open()) {
            int messages = 20;
            GuardedRegion target = wire.provider().registerOpen(messages * 16L);
            GuardedRegion inbox = wire.provider().registerOpen(messages * 16L);
            WireBench.Handshake h = wire.handshake(true, qp -> {
                for (int i = 0; i < messages; i++) {
                    qp.postReceive(WorkRequests.receive(i, inbox, i * 16L, 16));
                }
            });
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int i = 0; i < messages; i++) {
                burst.write(Fpdu.frame(DdpSegment.rdmaWrite(target.rkey(), target.address(i * 16L),
                        Patterns.bytes(100 + i, 16)), true));
                burst.write(Fpdu.frame(DdpSegment.send(h.raw().takeSendMsn(), Patterns.bytes(200 + i, 1 + i % 16)),
                        true));
            }
            h.raw().write(burst.toByteArray());
            for (int i = 0; i < messages; i++) {
                WorkCompletion wc = wire.provider().awaitCompletion(TIMEOUT);
                assertSuccess(wc, i, WcOpcode.RECV);
                assertEquals(1 + i % 16, wc.byteLength());
                Patterns.assertSameBytes(Patterns.bytes(100 + i, 16), target.segment().asSlice(i * 16L, 16),
                        "write " + i + " placed when Send " + i + " completes");
                Patterns.assertSameBytes(Patterns.bytes(200 + i, 1 + i % 16),
                        inbox.segment().asSlice(i * 16L, 1 + i % 16), "Send " + i);
            }
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void peerThatStopsReadingDoesNotStallOtherConnectionsAndLaterGetsEveryByte() throws Exception {
        try (WireBench wire = WireBench.open()) {
            int size = 16 << 20;
            GuardedRegion source = wire.provider().register(size, AccessFlag.REMOTE_READ).fill(3);
            WireBench.Handshake h = wire.handshake(false, QueuePairSetup.NONE);
            h.raw().sendFpdu(DdpSegment.readRequest(h.raw().takeReadRequestMsn(), 0x77, 0, size, source.rkey(),
                    source.address(0)));
            Thread.sleep(300); // the provider now sits on a full TCP send buffer towards us

            // meanwhile, on the same device, another connection keeps working
            Loopback.Pair pair = wire.bench().connect();
            GuardedRegion ping = wire.bench().client().registerOpen(64).fill(4);
            GuardedRegion pong = wire.bench().server().registerOpen(64);
            for (int round = 0; round < 20; round++) {
                pair.server().queuePair().postReceive(WorkRequests.receive(round, pong, 0, 64));
                pair.client().queuePair().postSend(WorkRequests.send(1000 + round, ping, 0, 64));
                assertSuccess(wire.bench().client().awaitCompletion(TIMEOUT), 1000 + round, WcOpcode.SEND);
                assertSuccess(wire.bench().server().awaitCompletion(TIMEOUT), round, WcOpcode.RECV);
            }

            ByteBuffer response = ByteBuffer.allocate(size);
            boolean last = false;
            while (!last) {
                RawIwarpInitiator.ReceivedFpdu fpdu = h.raw().readFpdu(TIMEOUT);
                byte[] ulpdu = fpdu.ulpdu();
                assertEquals(DdpSegment.OP_READ_RESPONSE, DdpSegment.opcodeOf(ulpdu), "only Read Responses expected");
                ByteBuffer header = ByteBuffer.wrap(ulpdu, 2, 12);
                assertEquals(0x77, header.getInt());
                assertEquals(response.position(), header.getLong(), "Read Response TO");
                response.put(ulpdu, DdpSegment.TAGGED_HEADER_LENGTH, ulpdu.length - DdpSegment.TAGGED_HEADER_LENGTH);
                last = (DdpSegment.controlOf(ulpdu) & DdpSegment.LAST) != 0;
            }
            Patterns.assertSameBytes(source.segment(), MemorySegment.ofArray(response.array()),
                    "16 MiB Read Response after back-pressure");
        }
    }

    @ParameterizedTest(name = "with terminated header: {0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void terminateFromThePeerEndsTheConnectionAndFlushesPostedReceives(boolean withHeader) throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion inbox = wire.provider().registerOpen(64);
            WireBench.Handshake h = wire.handshake(true, WireBench.postReceive(1, inbox, 0, 64));
            ByteBuffer terminate = ByteBuffer.allocate(withHeader ? 22 + 16 : 22);
            terminate.putShort((short) DdpSegment.control(false, true, DdpSegment.OP_TERMINATE)).putInt(0)
                    .putInt(DdpSegment.QN_TERMINATE).putInt(1).putInt(0);
            if (withHeader) {
                // as siw_send_terminate() sends a DDP tagged buffer error: layer 1, etype 1, ecode 0 (invalid
                // STag), M and D set, then the DDP segment length and the 14-byte tagged header it refused
                terminate.put((byte) 0x11).put((byte) 0x00).put((byte) 0xc0).put((byte) 0)
                        .putShort((short) 64).putShort((short) DdpSegment.control(true, true, DdpSegment.OP_RDMA_WRITE))
                        .putInt(0x00dead01).putLong(0x1000);
            } else {
                // as siw sends LLP and RDMAP catastrophic errors: no terminated header at all (here RDMAP layer,
                // remote operation error, catastrophic error localized to the stream)
                terminate.put((byte) 0x02).put((byte) 0x07).putShort((short) 0);
            }
            h.raw().sendFpdu(terminate.array());

            DisconnectEvent end = Loopback.awaitDisconnect(h.provider());
            assertEquals(DisconnectEvent.Cause.TERMINATE_RECEIVED, end.cause(), end.detail());
            WorkCompletion wc = wire.provider().awaitCompletion(TIMEOUT);
            assertEquals(1, wc.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), wc::toString);
            assertTrue(h.raw().awaitClose(TIMEOUT).closed(), "the provider kept the stream after a Terminate");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void providerWorkOutstandingWhenThePeerResetsTheStreamCompletesWithFlushErrors() throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion inbox = wire.provider().registerOpen(64);
            GuardedRegion sink = wire.provider().registerOpen(1 << 20);
            WireBench.Handshake h = wire.handshake(false, WireBench.postReceive(1, inbox, 0, 64));
            h.raw().sendFpdu(DdpSegment.send(h.raw().takeSendMsn(), new byte[4]));
            assertSuccess(wire.provider().awaitCompletion(TIMEOUT), 1, WcOpcode.RECV);
            postReadTowardsThePeerAndTwoReceives(h, sink);
            h.raw().readFpdu(TIMEOUT); // the Read Request: we will never answer it
            h.raw().reset();

            DisconnectEvent end = Loopback.awaitDisconnect(h.provider());
            assertTrue(end.cause() == DisconnectEvent.Cause.TRANSPORT_ERROR
                    || end.cause() == DisconnectEvent.Cause.PEER_DISCONNECT, end::toString);
            Set<Long> flushed = new HashSet<>();
            for (WorkCompletion wc : wire.provider().awaitCompletions(3, TIMEOUT)) {
                assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), wc::toString);
                flushed.add(wc.wrId());
            }
            assertEquals(Set.of(2L, 3L, 4L), flushed, "the Read and both receives are flushed");
            sink.assertGuardsIntact();
        }
    }

    /** Posts a 1 MiB RDMA Read towards the raw peer and two more receives on the provider's queue pair. */
    private static void postReadTowardsThePeerAndTwoReceives(WireBench.Handshake h, GuardedRegion sink)
            throws Exception {
        h.provider().queuePair().postSend(WorkRequests.rdmaRead(2, sink, 0, 1 << 20, 0x1000, 0x00abcd00));
        h.provider().queuePair().postReceive(WorkRequests.receive(3, sink, 0, 64));
        h.provider().queuePair().postReceive(WorkRequests.receive(4, sink, 64, 64));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void providerSolicitedSendAndSendWithInvalidateUseTheirOwnOpcodes() throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion local = wire.provider().registerOpen(64).fill(5);
            GuardedRegion inbox = wire.provider().registerOpen(64);
            WireBench.Handshake h = wire.handshake(true, WireBench.postReceive(1, inbox, 0, 64));
            h.raw().sendFpdu(DdpSegment.send(h.raw().takeSendMsn(), new byte[4])); // the initiator speaks first
            assertSuccess(wire.provider().awaitCompletion(TIMEOUT), 1, WcOpcode.RECV);

            h.provider().queuePair().postSend(WorkRequests.send(2, local, 0, 8).solicited(true));
            h.provider().queuePair().postSend(WorkRequests.sendWithInvalidate(3, local, 0, 8, 0x00123401));
            h.provider().queuePair().postSend(WorkRequests.sendWithInvalidate(4, local, 0, 8, 0x00123402)
                    .solicited(true));
            int[] expectedOpcodes = {DdpSegment.OP_SEND_SE, DdpSegment.OP_SEND_INVALIDATE,
                DdpSegment.OP_SEND_SE_INVALIDATE};
            int[] expectedStags = {0, 0x00123401, 0x00123402};
            for (int i = 0; i < 3; i++) {
                RawIwarpInitiator.ReceivedFpdu fpdu = h.raw().readFpdu(TIMEOUT);
                assertTrue(fpdu.crcMatches(), "CRC");
                ByteBuffer header = ByteBuffer.wrap(fpdu.ulpdu());
                assertEquals(DdpSegment.control(false, true, expectedOpcodes[i]), header.getShort() & 0xffff,
                        "control of send " + i);
                int word = header.getInt();
                if (expectedStags[i] != 0) {
                    assertEquals(expectedStags[i], word, "RFC 5040, 4.4: Invalidate STag of send " + i);
                }
                assertEquals(DdpSegment.QN_SEND, header.getInt());
                assertEquals(i + 1, header.getInt(), "MSN of send " + i);
                assertEquals(0, header.getInt(), "MO");
            }
            for (int i = 0; i < 3; i++) {
                assertSuccess(wire.provider().awaitCompletion(TIMEOUT), 2 + i, WcOpcode.SEND);
            }
        }
    }
}
