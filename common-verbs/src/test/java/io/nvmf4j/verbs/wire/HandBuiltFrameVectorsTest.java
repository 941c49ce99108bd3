package io.nvmf4j.verbs.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hand-built bytes of the raw-socket tests checked against vectors written out from outside sources, so a
 * negative test that gets a Terminate back fails for the reason it names and not for a mistake of ours.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class HandBuiltFrameVectorsTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void enhancedMpaRequestMatchesTheRequestLinuxNvmeRdmaSentOverSiw() {
        // interop lab: the first 56 bytes a guest kernel nvme-rdma host sent over siw: key, flags 0x10
        // (enhanced), revision 2, PD_Length 36, IRD/ORD words 0080 0000, the 32-byte NVMe-oF CM request
        // (recfmt 0, qid 0, hrqsize 32, hsqsize 31, little-endian)
        byte[] captured = HEX.parseHex("4d504120494420526571204672616d65" + "10020024" + "00800000"
                + "000000002000" + "1f00" + "00".repeat(24));
        byte[] cmRequest = HEX.parseHex("0000000020001f00" + "00".repeat(24));
        assertArrayEquals(captured, MpaConnectionFrame.enhancedRequest(false, 0x80, 0, cmRequest));
    }

    @Test
    void mpaReplyFrameIsParsedFieldByField() {
        // a reply like the one the interop lab saw nvmet-rdma over siw sending: "MPA ID Rep Frame", revision 2,
        // IRD/ORD words 8010 8010 (peer-to-peer, write RTR, 16/16); here with the CRC flag set as well
        byte[] header = HEX.parseHex("4d504120494420526570204672616d65" + "50020004");
        MpaConnectionFrame reply = MpaConnectionFrame.decode(header, HEX.parseHex("80108010"));
        assertTrue(reply.isReplyKey());
        assertTrue(reply.crc());
        assertTrue(reply.enhanced());
        assertFalse(reply.reject());
        assertFalse(reply.markers());
        assertEquals(2, reply.revision());
        assertEquals(16, reply.ird());
        assertEquals(16, reply.ord());
        assertEquals(0, reply.ulpPrivateData().length);
    }

    @Test
    void crcTrailerMatchesTheIscsiCrc32cExamples() {
        // RFC 3720, B.4: CRC32c results as the bytes sent, the order siw_crc_final() writes too
        assertEquals("aa36918a", HEX.formatHex(MpaCrc.trailer(new byte[32], 0, 32)));
        byte[] ones = new byte[32];
        Arrays.fill(ones, (byte) 0xff);
        assertEquals("43aba862", HEX.formatHex(MpaCrc.trailer(ones, 0, 32)));
        byte[] up = new byte[32];
        byte[] down = new byte[32];
        for (int i = 0; i < 32; i++) {
            up[i] = (byte) i;
            down[i] = (byte) (31 - i);
        }
        assertEquals("4e79dd46", HEX.formatHex(MpaCrc.trailer(up, 0, 32)));
        assertEquals("5cdb3f11", HEX.formatHex(MpaCrc.trailer(down, 0, 32)));
    }

    @Test
    void rdmapControlFieldsMatchSiwPacketInfoTable() {
        // siw_qp.c iwarp_pktinfo[]: DDP_FLAG_TAGGED 0x8000 | DDP_FLAG_LAST 0x4000 | DDP_VERSION 1 << 8
        // | RDMAP_VERSION 1 << 6 | opcode
        assertEquals(0xc140, DdpSegment.control(true, true, DdpSegment.OP_RDMA_WRITE));
        assertEquals(0x4141, DdpSegment.control(false, true, DdpSegment.OP_READ_REQUEST));
        assertEquals(0xc142, DdpSegment.control(true, true, DdpSegment.OP_READ_RESPONSE));
        assertEquals(0x4143, DdpSegment.control(false, true, DdpSegment.OP_SEND));
        assertEquals(0x4144, DdpSegment.control(false, true, DdpSegment.OP_SEND_INVALIDATE));
        assertEquals(0x4147, DdpSegment.control(false, true, DdpSegment.OP_TERMINATE));
    }

    @Test
    void rdmaWriteFpduHasTheLayoutOfStructIwarpRdmaWrite() {
        // struct iwarp_rdma_write: mpa_len, ddp_rdmap_ctrl, sink_stag, sink_to (16 bytes); 5 payload bytes;
        // MPA length = 14 + 5 = 19; 2 + 19 = 21, so 3 pad bytes; zero CRC without negotiated CRC
        byte[] fpdu = Fpdu.frame(DdpSegment.rdmaWrite(0x12345678, 0x0102030405060708L, HEX.parseHex("aabbccddee")),
                false);
        assertEquals("0013" + "c140" + "12345678" + "0102030405060708" + "aabbccddee" + "000000" + "00000000",
                HEX.formatHex(fpdu));
    }

    @Test
    void sendFpduWithCrcCoversHeaderPayloadAndPad() {
        // struct iwarp_send: mpa_len, ctrl, rsvd, ddp_qn 0, ddp_msn, ddp_mo (20 bytes) + 2 payload bytes:
        // MPA length 18 + 2 = 20; 2 + 20 = 22, so 2 pad bytes; the CRC covers all 24 bytes before it
        byte[] ulpdu = DdpSegment.send(1, HEX.parseHex("0102"));
        byte[] fpdu = Fpdu.frame(ulpdu, true);
        assertEquals(28, fpdu.length);
        assertEquals("0014" + "4143" + "00000000" + "00000000" + "00000001" + "00000000" + "0102" + "0000",
                HEX.formatHex(fpdu, 0, 24));
        assertArrayEquals(MpaCrc.trailer(fpdu, 0, 24), Arrays.copyOfRange(fpdu, 24, 28));
    }

    @Test
    void readRequestHasTheLayoutOfStructIwarpRdmaRreq() {
        // struct iwarp_rdma_rreq is 48 bytes with its mpa_len: a 46-byte ULPDU
        byte[] ulpdu = DdpSegment.readRequest(1, 0x11, 0x22L, 0x33, 0x44, 0x55L);
        assertEquals("4141" + "00000000" + "00000001" + "00000001" + "00000000" + "00000011"
                + "0000000000000022" + "00000033" + "00000044" + "0000000000000055", HEX.formatHex(ulpdu));
    }

    @Test
    void terminateIsParsedWithRfc5040BitPositions() {
        // RFC 5040, 4.8: layer 1 (DDP), etype 1 (tagged buffer), ecode 0 (invalid STag), M and D set, then the
        // DDP segment length and the 14-byte tagged DDP header of the offending segment
        byte[] ulpdu = HEX.parseHex("4147" + "00000000" + "00000002" + "00000001" + "00000000" + "1100c000"
                + "0004" + "c140" + "deadbe00" + "0000000000001000");
        TerminateMessage terminate = TerminateMessage.parse(ulpdu);
        assertEquals(TerminateMessage.LAYER_DDP, terminate.layer());
        assertEquals(TerminateMessage.DDP_ETYPE_TAGGED, terminate.errorType());
        assertEquals(TerminateMessage.DDP_T_ECODE_INVALID_STAG, terminate.errorCode());
        assertTrue(terminate.segmentLengthValid());
        assertTrue(terminate.ddpHeaderIncluded());
        assertFalse(terminate.rdmapHeaderIncluded());
        assertEquals(2, terminate.queueNumber());
        assertEquals(1, terminate.msn());
        assertEquals(16, terminate.terminatedHeaders().length);
    }
}
