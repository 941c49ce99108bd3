package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.softiwarp.ddp.DdpHeader;
import io.nvmf4j.verbs.softiwarp.ddp.DdpTaggedHeader;
import io.nvmf4j.verbs.softiwarp.ddp.DdpUntaggedHeader;
import io.nvmf4j.verbs.softiwarp.rdmap.RdmapOpcode;
import io.nvmf4j.verbs.softiwarp.rdmap.ReadRequestHeader;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateCodes;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateMessage;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * DDP/RDMAP headers byte for byte, written out from RFC 5041 Figures 4/5, RFC 5040 Figures 9/11 and siw's
 * iwarp_pktinfo[] control words (e.g. RDMA Write: DDP_FLAG_TAGGED | DDP_FLAG_LAST | DDP v1 | RDMAP v1 | opcode 0 =
 * c1 40).
 */
class FpduHeaderVectorTest {
    private static String hex(ByteBuffer b, int len) {
        byte[] out = new byte[len];
        b.get(0, out);
        return Hex.of(out);
    }

    @Test
    void rdmaWriteHeader() {
        ByteBuffer b = ByteBuffer.allocate(16);
        DdpTaggedHeader.encode(b, RdmapOpcode.RDMA_WRITE.code(), true, 0x12345678, 0x0000_7f00_1122_3344L, 4096);
        // MPA length = 14 + 4096 = 0x100e
        assertEquals("100e" + "c140" + "12345678" + "00007f0011223344", hex(b, 16));
    }

    @Test
    void readResponseMiddleSegmentHasNoLastFlag() {
        ByteBuffer b = ByteBuffer.allocate(16);
        DdpTaggedHeader.encode(b, RdmapOpcode.RDMA_READ_RESPONSE.code(), false, 0xaabbccdd, 16, 0);
        assertEquals("000e" + "8142" + "aabbccdd" + "0000000000000010", hex(b, 16));
    }

    @Test
    void sendWithInvalidateHeader() {
        ByteBuffer b = ByteBuffer.allocate(20);
        DdpUntaggedHeader.encode(b, RdmapOpcode.SEND_WITH_INVALIDATE.code(), true, 0x00010203,
                DdpUntaggedHeader.QN_SEND, 1, 0, 64);
        // MPA length = 18 + 64 = 0x52; L, DDP v1 = 41; RDMAP v1, opcode 4 = 44
        assertEquals("0052" + "4144" + "00010203" + "00000000" + "00000001" + "00000000", hex(b, 20));
        assertEquals(0, DdpHeader.padLength(0x52));
        // 63 payload bytes after a 20-byte header: 83 bytes, one pad byte (RFC 5044 4.1)
        assertEquals(1, DdpHeader.padLength(18 + 63));
        assertEquals(3, DdpHeader.padLength(14 + 1));
    }

    @Test
    void readRequestHasTheLayoutOfStructIwarpRdmaRreq() {
        ByteBuffer b = ByteBuffer.allocate(48);
        ReadRequestHeader.encode(b, 3, 0x01000105, 0x1000, 8192, 0x02000207, 0x2000);
        assertEquals("002e" + "4141" + "00000000" + "00000001" + "00000003" + "00000000"
                + "01000105" + "0000000000001000" + "00002000" + "02000207" + "0000000000002000", hex(b, 48));
        assertEquals(48, RdmapOpcode.RDMA_READ_REQUEST.headerLength());
    }

    @Test
    void terminateForAnInvalidStagCopiesTheTaggedHeaderWithTheSegmentLength() {
        ByteBuffer write = ByteBuffer.allocate(16);
        DdpTaggedHeader.encode(write, RdmapOpcode.RDMA_WRITE.code(), true, 0x0000ab01, 0x1000, 100);
        TerminateMessage t = TerminateMessage.forInbound(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_TAGGED_BUF,
                TerminateCodes.DDP_ECODE_T_INVALID_STAG, write, 16);
        ByteBuffer out = ByteBuffer.allocate(t.lengthWithoutCrc());
        t.encode(out);
        // MPA len 22 + 16 = 0x26; L|v1 = 41, v1|op 7 = 47; QN 2, MSN 1, MO 0;
        // control: layer 1, etype 1, ecode 0, M and D = 1100 c000; then DDP segment length 100 = 0x64 and the header
        assertEquals("0026" + "4147" + "00000000" + "00000002" + "00000001" + "00000000" + "1100c000"
                + "0064" + "c140" + "0000ab01" + "0000000000001000", Hex.of(Arrays.copyOf(out.array(), 40)));
    }

    @Test
    void crcErrorTerminateCarriesNoHeader() {
        TerminateMessage t = TerminateMessage.plain(TerminateCodes.LAYER_LLP, TerminateCodes.LLP_ETYPE_MPA,
                TerminateCodes.LLP_ECODE_RECEIVED_CRC);
        ByteBuffer out = ByteBuffer.allocate(24);
        t.encode(out);
        assertEquals("0016" + "4147" + "00000000" + "00000002" + "00000001" + "00000000" + "20020000",
                Hex.of(out.array()));
    }
}
