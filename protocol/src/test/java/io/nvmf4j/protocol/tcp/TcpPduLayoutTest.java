package io.nvmf4j.protocol.tcp;

import static io.nvmf4j.protocol.Hex.zeros;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Hex;
import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * The PDU bytes against the layouts of the NVMe/TCP 1.0a PDU figures and what Linux puts on the wire: the host's
 * {@code nvme_tcp_init_connection()} and {@code nvme_tcp_setup_cmd_pdu()}, nvmet's {@code nvmet_tcp_handle_icreq()},
 * {@code nvmet_setup_c2h_data_pdu()}, {@code nvmet_setup_r2t_pdu()} and {@code nvmet_setup_response_pdu()}
 * (include/linux/nvme-tcp.h), and SPDK's {@code spdk_nvme_tcp_term_req_hdr} for the TermReq.
 */
class TcpPduLayoutTest {

    /** A Linux host's ICReq with {@code nvme connect -t tcp -g -G}: type 0, HLEN = PLEN = 128, PFV 0, HPDA 0,
     *  DGST 3, MAXR2T 0. */
    static final String LINUX_ICREQ_BOTH_DIGESTS = "00 00 80 00 80000000 0000 00 03 00000000" + zeros(112);

    /** nvmet's answer to it: type 1, CPDA 0, DGST 3, MAXH2CDATA 0x400000. */
    static final String NVMET_ICRESP_BOTH_DIGESTS = "01 00 80 00 80000000 0000 00 03 00004000" + zeros(112);

    static final NegotiatedParameters DIGESTS = new NegotiatedParameters(true, true, 0, 0, 0x400000, 0);
    static final NegotiatedParameters PLAIN = new NegotiatedParameters(false, false, 0, 0, 0x400000, 0);

    @Test
    void theIcReqALinuxHostSendsDecodesAndEncodesToTheSameBytes() {
        IcReq r = IcReq.decode(Hex.segment(LINUX_ICREQ_BOTH_DIGESTS));
        assertEquals(new IcReq(0, 0, true, true, 0), r);
        assertEquals(r, IcReq.of(true, true));
        MemorySegment out = MemorySegment.ofArray(new byte[IcReq.LENGTH]);
        r.encode(out);
        assertEquals(Hex.norm(LINUX_ICREQ_BOTH_DIGESTS), Hex.of(out));
    }

    @Test
    void theAnswerToItIsWhatNvmetSends() {
        IcReq r = IcReq.decode(Hex.segment(LINUX_ICREQ_BOTH_DIGESTS));
        IcResp answer = IcResp.answering(r, 0x400000);
        MemorySegment out = MemorySegment.ofArray(new byte[IcReq.LENGTH]);
        answer.encode(out);
        assertEquals(Hex.norm(NVMET_ICRESP_BOTH_DIGESTS), Hex.of(out));
        assertEquals(answer, IcResp.decode(out, r));
        assertEquals(DIGESTS, answer.negotiated(r));
    }

    @Test
    void aCapsuleCmdWithInCapsuleDataIsLaidOutAsTheLinuxHostDoes() {
        // nvme_tcp_setup_cmd_pdu(): PDO = HLEN + HDGST, PLEN = HLEN + HDGST + data + DDGST, HDGSTF|DDGSTF
        MemorySegment pdu = MemorySegment.ofArray(new byte[128]);
        long plen = CapsulePdu.writeCommandHeader(pdu, DIGESTS, 4096);
        assertEquals(72 + 4 + 4096 + 4, plen);
        assertEquals(Hex.norm("04 03 48 4c" + "50100000"), Hex.of(pdu.asSlice(0, 8)));
        assertEquals(76, DIGESTS.dataOffset(PduType.CAPSULE_CMD));
        // without data: no PDO, no DDGSTF (Linux sets DDGSTF only when pdu_len)
        CapsulePdu.writeCommandHeader(pdu, DIGESTS, 0);
        assertEquals(Hex.norm("04 01 48 00" + "4c000000"), Hex.of(pdu.asSlice(0, 8)));
        CapsulePdu.writeCommandHeader(pdu, PLAIN, 0);
        assertEquals(Hex.norm("04 00 48 00" + "48000000"), Hex.of(pdu.asSlice(0, 8)));
        pdu.set(ValueLayout.JAVA_BYTE, 8, (byte) 0x02); // the SQE's opcode: right after the CH
        assertEquals(0x02, CapsulePdu.command(pdu).get(ValueLayout.JAVA_BYTE, 0));
        assertEquals(64, CapsulePdu.command(pdu).byteSize());
    }

    @Test
    void aCapsuleRespAndAnR2tAreWhatNvmetSends() {
        MemorySegment pdu = MemorySegment.ofArray(new byte[64]);
        assertEquals(28, CapsulePdu.writeResponseHeader(pdu, DIGESTS));
        assertEquals(Hex.norm("05 01 18 00 1c000000"), Hex.of(pdu.asSlice(0, 8)));
        assertEquals(16, CapsulePdu.response(pdu).byteSize());
        // nvmet_setup_r2t_pdu(): flags HDGSTF only, PDO 0, PLEN = HLEN + HDGST; CCCID, TTAG, R2TO, R2TL
        assertEquals(28, DataPdu.writeR2t(pdu, DIGESTS, 0x1234, 0x0007, 8192, 65536));
        assertEquals(Hex.norm("09 01 18 00 1c000000 3412 0700 00200000 00000100 00000000"),
                Hex.of(pdu.asSlice(0, 24)));
        assertEquals(0x1234, DataPdu.commandId(pdu));
        assertEquals(7, DataPdu.transferTag(pdu));
        assertEquals(8192, DataPdu.dataOffset(pdu));
        assertEquals(65536, DataPdu.dataLength(pdu));
    }

    @Test
    void aLastC2hDataWithSuccessIsWhatNvmetSends() {
        // nvmet_setup_c2h_data_pdu(): PDO = HLEN + HDGST, PLEN adds the data and DDGST; TTAG reserved
        MemorySegment pdu = MemorySegment.ofArray(new byte[64]);
        long plen = DataPdu.writeData(pdu, PduType.C2H_DATA, DIGESTS,
                PduHeader.FLAG_LAST_PDU | PduHeader.FLAG_SUCCESS, 0x0042, 0x9999, 0, 4096);
        assertEquals(24 + 4 + 4096 + 4, plen);
        assertEquals(Hex.norm("07 0f 18 1c 20100000 4200 0000 00000000 00100000 00000000"),
                Hex.of(pdu.asSlice(0, 24)));
        assertEquals(4096, PduHeader.dataLength(pdu, DIGESTS));
        assertThrows(IllegalArgumentException.class,
                () -> DataPdu.writeData(pdu, PduType.R2T, DIGESTS, 0, 1, 1, 0, 1));
    }

    @Test
    void aTermReqCarriesFesAndFeiWhereTheSpecificationAndSpdkPutThem() {
        // FES at 8, FEI at 10 (SPDK: uint8_t fei[4]; Linux's struct, not packed, would put it at 12 but reads only
        // FES), reserved to 23, then the header in error
        MemorySegment bad = Hex.segment("04 00 48 00 ffffffff");
        TermReq t = TermReq.of(false, new TermCause(FatalErrorStatus.INVALID_HEADER_FIELD, 4, "PLEN"), bad);
        MemorySegment out = MemorySegment.ofArray(new byte[t.length()]);
        t.encode(out);
        assertEquals(Hex.norm("03 00 18 00 20000000 0100 04000000" + zeros(10) + "04 00 48 00 ffffffff"),
                Hex.of(out));
        assertEquals(t.status(), TermReq.decode(out).status());
        assertEquals(4, TermReq.decode(out).information());
        assertEquals(Hex.of(bad), Hex.of(TermReq.decode(out).errorData()));
    }

    @Test
    void theFirstPduMustBeAnIcReqOfVersionOneWithinTheAlignmentLimit() {
        assertEquals(FatalErrorStatus.PDU_SEQUENCE_ERROR,
                IcReq.check(Hex.segment("04 00 48 00 48000000" + zeros(64))).status());
        TermCause pfv = IcReq.check(Hex.segment("00 00 80 00 80000000 0100 00 00 00000000" + zeros(112)));
        assertEquals(FatalErrorStatus.UNSUPPORTED_PARAMETER, pfv.status());
        assertEquals(IcReq.OFFSET_PFV, pfv.information());
        TermCause hpda = IcReq.check(Hex.segment("00 00 80 00 80000000 0000 20 00 00000000" + zeros(112)));
        assertEquals(IcReq.OFFSET_HPDA, hpda.information());
        TermCause plen = IcReq.check(Hex.segment("00 00 80 00 00100000 0000 00 00 00000000" + zeros(112)));
        assertEquals(FatalErrorStatus.INVALID_HEADER_FIELD, plen.status());
        assertEquals(PduHeader.OFFSET_PLEN, plen.information());
        assertEquals(PduHeader.OFFSET_PLEN, IcReq.check(Hex.segment("00 00 80 00 80000000")).information());
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> IcReq.decode(Hex.segment("00 00 80 00 80000000 0000 00 04 00000000" + zeros(112))));
        assertEquals(IcReq.OFFSET_DGST, e.fieldOffset().orElseThrow());
    }

    @Test
    void aHostRefusesAnIcRespThatLinuxWouldRefuse() {
        IcReq sent = IcReq.of(true, true);
        assertNull(IcResp.check(Hex.segment(NVMET_ICRESP_BOTH_DIGESTS), sent));
        // digests other than those asked, a MAXH2CDATA under 4,096 or not a multiple of 4
        assertEquals(IcResp.OFFSET_DGST, IcResp.check(Hex.segment(NVMET_ICRESP_BOTH_DIGESTS),
                IcReq.of(false, true)).information());
        assertEquals(IcResp.OFFSET_MAXH2CDATA, IcResp.check(Hex.segment(
                "01 00 80 00 80000000 0000 00 03 000f0000" + zeros(112)), sent).information());
        assertEquals(IcResp.OFFSET_MAXH2CDATA, IcResp.check(Hex.segment(
                "01 00 80 00 80000000 0000 00 03 02100000" + zeros(112)), sent).information());
    }

    @Test
    void aPduIsBuiltInRegisteredMemoryWithItsDigests() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pdu = arena.allocate(24 + 4 + 8 + 4);
            long plen = DataPdu.writeData(pdu, PduType.H2C_DATA, DIGESTS, PduHeader.FLAG_LAST_PDU, 3, 5, 0, 8);
            PduDigest.write(pdu, 0, 24);
            pdu.asSlice(28, 8).fill((byte) 0x5a);
            PduDigest.write(pdu, 28, 36);
            assertEquals(plen, pdu.byteSize());
            assertNull(PduHeader.check(pdu, DIGESTS, false, 1 << 20));
            assertTrue(PduDigest.matches(pdu, 0, 24));
            assertTrue(PduDigest.matches(pdu, 28, 36));
            pdu.set(ValueLayout.JAVA_BYTE, 30, (byte) 0);
            assertFalse(PduDigest.matches(pdu, 28, 36));
        }
    }
}
