package io.nvmf4j.verbs.wire;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static io.nvmf4j.verbs.wire.MalformedFpduSetup.RECV_ID;
import static io.nvmf4j.verbs.wire.MalformedFpduSetup.SIZE;
import static io.nvmf4j.verbs.wire.TerminateMessage.DDP_ETYPE_TAGGED;
import static io.nvmf4j.verbs.wire.TerminateMessage.LAYER_DDP;
import static io.nvmf4j.verbs.wire.TerminateMessage.LAYER_LLP;
import static io.nvmf4j.verbs.wire.TerminateMessage.LAYER_RDMAP;
import static io.nvmf4j.verbs.wire.TerminateMessage.RDMAP_ETYPE_REMOTE_PROTECTION;
import static io.nvmf4j.verbs.wire.WireBench.term;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.conformance.GuardedRegion;
import io.nvmf4j.verbs.conformance.Loopback;
import io.nvmf4j.verbs.conformance.Patterns;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * After a valid MPA exchange done by hand (CRC on, so the CRC path is exercised too), one bad FPDU each. The
 * provider must answer with a Terminate whose layer/type/code name the error (RFC 5040, 7; RFC 5041, 7.2;
 * RFC 5044, 8; the values Linux siw sends from siw_qp_rx.c are accepted where the RFCs leave a choice), close
 * the stream, end its connection as TERMINATE_SENT, complete its posted receive in error, and leave every byte
 * outside the addressed region unchanged.
 *
 * <p>This class holds the errors of the framing (MPA, RFC 5044) and of the stream under it; the DDP errors are
 * in {@link MalformedUntaggedDdpWireTest} and {@link MalformedTaggedDdpWireTest}, the RDMAP ones in
 * {@link MalformedRdmapWireTest}.
 */
class MalformedFpduWireTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void fpduWithABadCrcIsTerminatedWithAnMpaCrcError() throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
        try {
            byte[] ulpdu = DdpSegment.send(s.h().raw().takeSendMsn(), Patterns.bytes(71, 40));
            s.h().raw().write(Fpdu.frame(ulpdu, ulpdu.length, true, true));
            s.expectTerminate(term(LAYER_LLP, TerminateMessage.LLP_ETYPE_MPA, TerminateMessage.MPA_ECODE_CRC_ERROR));
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void fpduWhoseLengthFieldOverstatesItsSegmentNeverWritesPastTheRegion() throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
        try {
            // a 64-byte RDMA Write to the last 64 bytes of the region, but the MPA length says 64 bytes more and
            // 64 more bytes follow: read as framed, it is a 128-byte write running 64 bytes past the end, with a
            // CRC that does not match
            byte[] ulpdu = DdpSegment.rdmaWrite(s.target().rkey(), s.target().address(SIZE - 64),
                    Patterns.bytes(72, 64));
            int declared = ulpdu.length + 64;
            ByteBuffer frame = ByteBuffer.allocate(2 + declared + Fpdu.padLength(declared) + 4);
            frame.putShort((short) declared).put(ulpdu).put(Patterns.bytes(73, 64));
            frame.put(new byte[Fpdu.padLength(declared)]).put(MpaCrc.trailer(ulpdu, 0, ulpdu.length));
            s.h().raw().write(frame.array());
            TerminateMessage terminate = WireBench.assertTerminatedWith(s.h(),
                    term(LAYER_DDP, DDP_ETYPE_TAGGED, TerminateMessage.DDP_T_ECODE_BASE_BOUNDS),
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION, TerminateMessage.RDMAP_ECODE_BASE_BOUNDS),
                    term(LAYER_LLP, TerminateMessage.LLP_ETYPE_MPA, TerminateMessage.MPA_ECODE_CRC_ERROR));
            s.wire().assertReceiveFailed(RECV_ID);
            s.target().assertGuardsIntact();
            // the last 64 bytes lie inside the region and may have been placed before the error was seen
            byte[] after = s.target().snapshot();
            System.arraycopy(s.targetBefore(), SIZE - 64, after, SIZE - 64, 64);
            Patterns.assertSameBytes(s.targetBefore(), MemorySegment.ofArray(after), "region before the write");
            assertTrue(terminate.ddpHeaderIncluded() || terminate.layer() == LAYER_LLP,
                    () -> "a tagged buffer error names the segment (M and D set, as siw does): " + terminate);
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void peerThatResetsItsSocketDuringALargeReadResponseEndsTheConnectionAndFlushesReceives() throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion source = wire.provider().register(16 << 20, AccessFlag.REMOTE_READ).fill(94);
            GuardedRegion inbox = wire.provider().registerOpen(64);
            WireBench.Handshake h = wire.handshake(false, WireBench.postReceive(RECV_ID, inbox, 0, 64));
            h.raw().sendFpdu(DdpSegment.readRequest(h.raw().takeReadRequestMsn(), 0x1000, 0, 16 << 20, source.rkey(),
                    source.address(0)));
            h.raw().readFpdu(TIMEOUT); // the response is under way
            h.raw().reset();

            DisconnectEvent end = Loopback.awaitDisconnect(h.provider());
            assertTrue(end.cause() == DisconnectEvent.Cause.TRANSPORT_ERROR
                    || end.cause() == DisconnectEvent.Cause.PEER_DISCONNECT, end::toString);
            wire.assertReceiveFailed(RECV_ID, WcStatus.WR_FLUSH_ERR);
            source.assertGuardsIntact();
            // and the listener still serves
            assertTrue(wire.bench().connect().client().isConnected());
        }
    }
}
