package io.nvmf4j.verbs.wire;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * An RDMAP Terminate message as received (RFC 5040, 4.8), parsed from the ULPDU of an FPDU.
 *
 * <pre>
 * untagged DDP header: control (opcode 7, L set) | reserved(32) | QN = 2 | MSN | MO = 0
 * Terminate Control:   Layer(4) EType(4) | Error Code(8) | M(0x80) D(0x40) R(0x20) | reserved(13)
 * then, when D or R is set: DDP Segment Length(16), the terminated DDP header, the terminated RDMAP header
 * </pre>
 *
 * <p>The bit positions are those of RFC 5040 figure 12 (layer in the high nibble of the first control byte, M in
 * the top bit of the third). Linux siw declares {@code struct iwarp_terminate} with C bitfields that on
 * little-endian machines put the layer in the low nibble and the flags in the low bits instead; it never acts on
 * the received values (it logs them and resets the stream), so the RFC layout interoperates and is what this
 * suite expects.
 *
 * <p>Layers (RFC 5040, 7.1): 0 RDMAP, 1 DDP, 2 LLP (MPA). Error types and codes: RFC 5040, 7.2 (RDMAP),
 * RFC 5041, 7.2 (DDP), RFC 5044, 8 and RFC 6581, 6 (MPA); the same values as siw's {@code iwarp.h}.
 */
record TerminateMessage(int queueNumber, int msn, int messageOffset, int layer, int errorType, int errorCode,
        boolean segmentLengthValid, boolean ddpHeaderIncluded, boolean rdmapHeaderIncluded,
        byte[] terminatedHeaders) {

    static final int LAYER_RDMAP = 0;
    static final int LAYER_DDP = 1;
    static final int LAYER_LLP = 2;

    static final int RDMAP_ETYPE_CATASTROPHIC = 0;
    static final int RDMAP_ETYPE_REMOTE_PROTECTION = 1;
    static final int RDMAP_ETYPE_REMOTE_OPERATION = 2;
    static final int RDMAP_ECODE_INVALID_STAG = 0x00;
    static final int RDMAP_ECODE_BASE_BOUNDS = 0x01;
    static final int RDMAP_ECODE_ACCESS_RIGHTS = 0x02;
    static final int RDMAP_ECODE_STAG_NOT_ASSOCIATED = 0x03;
    static final int RDMAP_ECODE_INVALID_VERSION = 0x05;
    static final int RDMAP_ECODE_UNEXPECTED_OPCODE = 0x06;
    static final int RDMAP_ECODE_CANNOT_INVALIDATE = 0x09;

    static final int DDP_ETYPE_CATASTROPHIC = 0;
    static final int DDP_ETYPE_TAGGED = 1;
    static final int DDP_ETYPE_UNTAGGED = 2;
    static final int DDP_T_ECODE_INVALID_STAG = 0x00;
    static final int DDP_T_ECODE_BASE_BOUNDS = 0x01;
    static final int DDP_T_ECODE_STAG_NOT_ASSOCIATED = 0x02;
    static final int DDP_T_ECODE_INVALID_VERSION = 0x04;
    static final int DDP_UT_ECODE_INVALID_QN = 0x01;
    static final int DDP_UT_ECODE_NO_BUFFER = 0x02;
    static final int DDP_UT_ECODE_INVALID_MSN_RANGE = 0x03;
    static final int DDP_UT_ECODE_MESSAGE_TOO_LONG = 0x05;
    static final int DDP_UT_ECODE_INVALID_VERSION = 0x06;

    static final int LLP_ETYPE_MPA = 0;
    static final int MPA_ECODE_CRC_ERROR = 0x02;
    static final int MPA_ECODE_INVALID_REQUEST_RESPONSE = 0x04;

    /** Whether this ULPDU is a Terminate (untagged, RDMAP opcode 7). */
    static boolean isTerminate(byte[] ulpdu) {
        return ulpdu.length >= 2 && !DdpSegment.isTagged(ulpdu)
                && DdpSegment.opcodeOf(ulpdu) == DdpSegment.OP_TERMINATE;
    }

    /**
     * Parses a Terminate ULPDU.
     *
     * @throws IllegalArgumentException when the bytes are not a well-formed Terminate
     */
    static TerminateMessage parse(byte[] ulpdu) {
        if (!isTerminate(ulpdu)) {
            throw new IllegalArgumentException(
                    "not a Terminate: control 0x" + Integer.toHexString(DdpSegment.controlOf(ulpdu)));
        }
        if (ulpdu.length < 22) {
            throw new IllegalArgumentException("Terminate ULPDU of " + ulpdu.length + " bytes, at least 22 needed");
        }
        ByteBuffer in = ByteBuffer.wrap(ulpdu);
        int control = in.getShort() & 0xffff;
        if ((control & 0x0300) != DdpSegment.DDP_VERSION_1 || (control & 0x00c0) != DdpSegment.RDMAP_VERSION_1
                || (control & DdpSegment.LAST) == 0) {
            throw new IllegalArgumentException("Terminate with control 0x" + Integer.toHexString(control)
                    + ": DDP/RDMAP version 1 and the L bit expected");
        }
        in.getInt(); // reserved
        int qn = in.getInt();
        int msn = in.getInt();
        int mo = in.getInt();
        int b0 = in.get() & 0xff;
        int b1 = in.get() & 0xff;
        int b2 = in.get() & 0xff;
        in.get();
        boolean m = (b2 & 0x80) != 0;
        boolean d = (b2 & 0x40) != 0;
        boolean r = (b2 & 0x20) != 0;
        byte[] rest = Arrays.copyOfRange(ulpdu, in.position(), ulpdu.length);
        return new TerminateMessage(qn, msn, mo, b0 >>> 4, b0 & 0xf, b1, m, d, r, rest);
    }

    @Override
    public String toString() {
        return "Terminate[layer=" + layer + ", etype=" + errorType + ", ecode=0x" + Integer.toHexString(errorCode)
                + ", M=" + segmentLengthValid + ", D=" + ddpHeaderIncluded + ", R=" + rdmapHeaderIncluded + ", qn="
                + queueNumber + ", msn=" + msn + ", mo=" + messageOffset + "]";
    }
}
