package io.nvmf4j.protocol.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.nvmf4j.protocol.Hex;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * A peer's common header is held against the PDU type, the direction and what the connection agreed before the
 * receiver reads one byte more: each hostile header here ends the connection with the FES and the FEI (the
 * offset of the field in error) a TermReq reports.
 */
class PduHeaderCheckTest {
    private static final NegotiatedParameters DIGESTS = new NegotiatedParameters(true, true, 0, 0, 0x400000, 0);
    private static final NegotiatedParameters PLAIN = new NegotiatedParameters(false, false, 0, 0, 0x400000, 0);
    private static final long MAX = 8192 + 72 + 8;

    private static TermCause controllerReads(String header, NegotiatedParameters n) {
        return PduHeader.check(Hex.segment(header), n, false, MAX);
    }

    private static void assertField(int offset, TermCause cause) {
        assertEquals(FatalErrorStatus.INVALID_HEADER_FIELD, cause.status(), cause.reason());
        assertEquals(offset, cause.information(), cause.reason());
    }

    @Test
    void capsulesAndDataAsLinuxSendsThemPass() {
        assertNull(controllerReads("04 00 48 00 48000000", PLAIN));
        assertNull(controllerReads("04 00 48 48 48100000", PLAIN)); // 4 KiB in-capsule data
        assertNull(controllerReads("04 03 48 4c 50100000", DIGESTS));
        assertNull(controllerReads("06 04 18 18 18100000", PLAIN)); // H2CData, LAST_PDU
        assertNull(controllerReads("02 00 18 00 18000000", DIGESTS)); // H2CTermReq: never digests
        assertNull(PduHeader.check(Hex.segment("07 0c 18 18 18100000"), PLAIN, true, MAX)); // C2HData at the host
    }

    @Test
    void aTypeTheReceiverNeverGetsIsAnInvalidHeaderField() {
        assertField(0, controllerReads("05 00 18 00 18000000", PLAIN)); // a CapsuleResp sent to the controller
        assertField(0, controllerReads("08 00 18 00 18000000", PLAIN)); // 08h is not assigned
        assertField(0, controllerReads("ff 00 18 00 18000000", PLAIN));
        assertField(0, PduHeader.check(Hex.segment("04 00 48 00 48000000"), PLAIN, true, MAX));
    }

    @Test
    void aSecondIcReqIsAPduSequenceError() {
        assertEquals(FatalErrorStatus.PDU_SEQUENCE_ERROR, controllerReads("00 00 80 00 80000000", PLAIN).status());
    }

    @Test
    void aHeaderLengthOtherThanTheTypesIsRefused() {
        // Linux once read past its buffer on such a header (nvme_tcp_recv_pdu() before it checked HLEN)
        assertField(PduHeader.OFFSET_HLEN, controllerReads("04 00 ff 00 ff000000", PLAIN));
        assertField(PduHeader.OFFSET_HLEN, controllerReads("06 00 48 00 48000000", PLAIN));
    }

    @Test
    void aPlenBeyondWhatTheReceiverTakesOrShortOfTheHeaderIsRefused() {
        assertField(PduHeader.OFFSET_PLEN, controllerReads("04 00 48 48 ffffffff", PLAIN));
        assertField(PduHeader.OFFSET_PLEN, controllerReads("04 00 48 48 51200000", PLAIN));
        assertField(PduHeader.OFFSET_PLEN, controllerReads("04 00 48 00 10000000", PLAIN));
        assertField(PduHeader.OFFSET_PLEN, controllerReads("04 01 48 00 48000000", DIGESTS)); // no room for HDGST
    }

    @Test
    void digestFlagsMustBeWhatTheConnectionAgreed() {
        assertField(PduHeader.OFFSET_FLAGS, controllerReads("04 00 48 00 4c000000", DIGESTS));
        assertField(PduHeader.OFFSET_FLAGS, controllerReads("04 01 48 00 4c000000", PLAIN));
        assertField(PduHeader.OFFSET_FLAGS, controllerReads("04 01 48 4c 4c100000", DIGESTS)); // data, no DDGSTF
        assertField(PduHeader.OFFSET_FLAGS, controllerReads("04 03 48 00 4c000000", DIGESTS)); // DDGSTF, no data
    }

    @Test
    void dataMustStartAfterTheHeaderAlignedAndEndInsideThePdu() {
        assertField(PduHeader.OFFSET_PDO, controllerReads("04 00 48 10 48100000", PLAIN)); // inside the header
        assertField(PduHeader.OFFSET_PDO, controllerReads("04 00 48 49 48100000", PLAIN)); // not dword aligned
        assertField(PduHeader.OFFSET_PDO, controllerReads("04 00 48 00 48100000", PLAIN)); // data, PDO 0
        assertField(PduHeader.OFFSET_PDO, controllerReads("04 03 48 4c 50000000", DIGESTS)); // only the DDGST
        NegotiatedParameters aligned = new NegotiatedParameters(false, false, 0, 7, 0x400000, 0); // 32 bytes
        assertField(PduHeader.OFFSET_PDO, controllerReads("04 00 48 48 48100000", aligned));
        assertNull(controllerReads("04 00 48 60 60100000", aligned));
        assertEquals(0x60, aligned.dataOffset(PduType.CAPSULE_CMD));
    }

    @Test
    void dataOnAPduThatCarriesNoneIsRefused() {
        assertField(PduHeader.OFFSET_PLEN, PduHeader.check(Hex.segment("05 00 18 18 20000000"), PLAIN, true, MAX));
        assertField(PduHeader.OFFSET_PLEN, PduHeader.check(Hex.segment("09 00 18 18 20000000"), PLAIN, true, MAX));
    }

    @Test
    void theDataLengthIsWhatLiesBetweenPdoAndTheDataDigest() {
        assertEquals(4096, PduHeader.dataLength(Hex.segment("04 03 48 4c 50100000"), DIGESTS));
        assertEquals(0, PduHeader.dataLength(MemorySegment.ofArray(Hex.bytes("04 00 48 00 48000000")), PLAIN));
    }
}
