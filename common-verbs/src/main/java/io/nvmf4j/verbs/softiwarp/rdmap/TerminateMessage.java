package io.nvmf4j.verbs.softiwarp.rdmap;

import io.nvmf4j.verbs.softiwarp.ddp.DdpHeader;
import io.nvmf4j.verbs.softiwarp.ddp.DdpUntaggedHeader;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The RDMAP Terminate message (RFC 5040 4.8 Figure 11; siw {@code struct iwarp_terminate} and
 * {@code siw_send_terminate()}): an untagged segment on QN 2 (MSN 1, MO 0) whose RDMAP header is the 32-bit
 * Terminate Control field (layer 4 bits, error type 4 bits, error code 8 bits, M/D/R flags 0x8000/0x4000/0x2000)
 * followed, when M/D/R say so, by the DDP segment length (16 bits, where the terminated FPDU had its MPA length)
 * and the terminated DDP/RDMAP header.
 *
 * @param layer          error layer ({@link TerminateCodes#LAYER_RDMAP} ...)
 * @param errorType      error type
 * @param errorCode      error code
 * @param segmentLengthValid M flag: the DDP segment length is valid
 * @param ddpHeaderIncluded  D flag
 * @param rdmapHeaderIncluded R flag
 * @param terminatedHeader   the copied header starting with the DDP segment length (empty if none)
 */
public record TerminateMessage(int layer, int errorType, int errorCode, boolean segmentLengthValid,
                               boolean ddpHeaderIncluded, boolean rdmapHeaderIncluded, byte[] terminatedHeader) {

    public static final int OFFSET_CONTROL = 20;
    /** Header length including the MPA length field, without the terminated header. */
    public static final int HEADER_LENGTH = 24;
    public static final int FLAG_M = 0x8000;
    public static final int FLAG_D = 0x4000;
    public static final int FLAG_R = 0x2000;
    /** siw sends one Terminate per stream, with MSN 1 (siw_send_terminate). */
    public static final int MSN = 1;

    public TerminateMessage {
        terminatedHeader = terminatedHeader == null ? new byte[0] : terminatedHeader.clone();
    }

    @Override
    public byte[] terminatedHeader() {
        return terminatedHeader.clone();
    }

    /** The 32-bit Terminate Control word. */
    public int controlWord() {
        return (layer & 0xf) << 28 | (errorType & 0xf) << 24 | (errorCode & 0xff) << 16
                | (segmentLengthValid ? FLAG_M : 0) | (ddpHeaderIncluded ? FLAG_D : 0)
                | (rdmapHeaderIncluded ? FLAG_R : 0);
    }

    /** Length of the FPDU without the CRC (always a multiple of 4, so no pad). */
    public int lengthWithoutCrc() {
        return HEADER_LENGTH + terminatedHeader.length;
    }

    /** Writes the FPDU header and terminated header (no CRC) from position 0 of {@code out}. */
    public void encode(ByteBuffer out) {
        DdpUntaggedHeader.encode(out, RdmapOpcode.TERMINATE.code(), true, 0, DdpUntaggedHeader.QN_TERMINATE, MSN, 0,
                HEADER_LENGTH - DdpUntaggedHeader.LENGTH + terminatedHeader.length);
        out.putInt(OFFSET_CONTROL, controlWord());
        out.put(HEADER_LENGTH, terminatedHeader);
    }

    /** Decodes from a buffer holding the FPDU from its MPA length up to (not including) pad and CRC. */
    public static TerminateMessage decode(ByteBuffer fpdu, int ulpduEnd) {
        int control = fpdu.getInt(OFFSET_CONTROL);
        int copied = Math.max(0, ulpduEnd - HEADER_LENGTH);
        byte[] header = new byte[copied];
        fpdu.get(HEADER_LENGTH, header);
        return new TerminateMessage(control >>> 28, (control >>> 24) & 0xf, (control >>> 16) & 0xff,
                (control & FLAG_M) != 0, (control & FLAG_D) != 0, (control & FLAG_R) != 0, header);
    }

    /** The packed layer/type/code (see {@link TerminateCodes#pack}). */
    public int packed() {
        return TerminateCodes.pack(layer, errorType, errorCode);
    }

    public String describe() {
        return TerminateCodes.describe(layer, errorType, errorCode);
    }

    /**
     * Builds the Terminate siw builds for an error found in an inbound FPDU (siw_send_terminate, not in_tx):
     * which part of {@code rxHeader} (the failed FPDU's header bytes as received, from its MPA length) is copied,
     * and the M/D/R flags, follow that function.
     */
    public static TerminateMessage forInbound(int layer, int etype, int ecode, ByteBuffer rxHeader, int rxHeaderLength) {
        int copyLength = 0;
        boolean m = false;
        boolean d = false;
        boolean r = false;
        if (rxHeaderLength >= DdpHeader.OFFSET_RDMAP_CONTROL + 1) {
            boolean tagged = DdpHeader.tagged(rxHeader);
            int op = DdpHeader.opcode(rxHeader);
            if (layer == TerminateCodes.LAYER_RDMAP && etype != TerminateCodes.RDMAP_ETYPE_CATASTROPHIC) {
                if (etype == TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION) {
                    m = d = r = true;
                    copyLength = op == RdmapOpcode.RDMA_READ_REQUEST.code() ? ReadRequestHeader.LENGTH
                            : DdpUntaggedHeader.LENGTH;
                } else if (ecode != TerminateCodes.RDMAP_ECODE_VERSION && ecode != TerminateCodes.RDMAP_ECODE_OPCODE) {
                    m = d = true;
                    copyLength = tagged ? 16 : DdpUntaggedHeader.LENGTH;
                }
            } else if (layer == TerminateCodes.LAYER_DDP) {
                boolean versionError = (etype == TerminateCodes.DDP_ETYPE_TAGGED_BUF
                        && ecode == TerminateCodes.DDP_ECODE_T_VERSION)
                        || (etype == TerminateCodes.DDP_ETYPE_UNTAGGED_BUF
                        && ecode == TerminateCodes.DDP_ECODE_UT_VERSION);
                if (!versionError) {
                    m = d = true;
                    copyLength = tagged ? 16 : DdpUntaggedHeader.LENGTH;
                }
            }
        }
        byte[] copy = new byte[copyLength];
        if (copyLength > 0) {
            rxHeader.get(0, copy, 0, Math.min(copyLength, rxHeaderLength));
            RdmapOpcode op = RdmapOpcode.of(DdpHeader.opcode(rxHeader));
            if (m && op != null) {
                // siw_send_terminate: replace the MPA length by the DDP segment (payload) length
                int segmentLength = (DdpHeader.mpaLength(rxHeader) - (op.headerLength() - DdpHeader.MPA_HEADER_LENGTH))
                        & 0xffff;
                copy[0] = (byte) (segmentLength >>> 8);
                copy[1] = (byte) segmentLength;
            }
        }
        return new TerminateMessage(layer, etype, ecode, m, d, r, copy);
    }

    /** A Terminate without a copied header (LLP errors, catastrophic errors, local errors found while sending). */
    public static TerminateMessage plain(int layer, int etype, int ecode) {
        return new TerminateMessage(layer, etype, ecode, false, false, false, new byte[0]);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TerminateMessage t && controlWord() == t.controlWord()
                && Arrays.equals(terminatedHeader, t.terminatedHeader);
    }

    @Override
    public int hashCode() {
        return controlWord() * 31 + Arrays.hashCode(terminatedHeader);
    }

    @Override
    public String toString() {
        return "Terminate[" + describe() + ", M=" + segmentLengthValid + ", D=" + ddpHeaderIncluded + ", R="
                + rdmapHeaderIncluded + ", hdr=" + terminatedHeader.length + "B]";
    }
}
