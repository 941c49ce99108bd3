package io.nvmf4j.verbs.softiwarp.ddp;

import java.nio.ByteBuffer;

/**
 * The untagged DDP segment header (RFC 5041 4.4 Figure 5; siw {@code struct iwarp_ctrl_untagged}): after the
 * 4 control bytes of {@link DdpHeader}, 32 bits reserved for the ULP (RDMAP puts the Invalidate STag of a Send
 * with Invalidate here, RFC 5040 4.3), the 32-bit Queue Number, Message Sequence Number and Message Offset.
 * 20 bytes including the MPA length.
 */
public final class DdpUntaggedHeader {
    private DdpUntaggedHeader() {
    }

    public static final int OFFSET_ULP_RESERVED = 4;
    public static final int OFFSET_QN = 8;
    public static final int OFFSET_MSN = 12;
    public static final int OFFSET_MO = 16;
    /** Header length including the MPA length field. */
    public static final int LENGTH = 20;

    /** RFC 5040 5.1 / siw {@code RDMAP_UNTAGGED_QN_SEND}. */
    public static final int QN_SEND = 0;
    /** RFC 5040 5.1 / siw {@code RDMAP_UNTAGGED_QN_RDMA_READ}. */
    public static final int QN_READ_REQUEST = 1;
    /** RFC 5040 5.1 / siw {@code RDMAP_UNTAGGED_QN_TERMINATE}. */
    public static final int QN_TERMINATE = 2;

    /**
     * Writes an untagged header at the buffer's start.
     *
     * @param ulpLength bytes following this 20-byte header in the ULPDU (RDMAP header bytes + payload)
     */
    public static void encode(ByteBuffer out, int opcode, boolean last, int ulpReserved, int queueNumber, int msn,
                              int messageOffset, int ulpLength) {
        out.putShort(DdpHeader.OFFSET_MPA_LENGTH, (short) (LENGTH - DdpHeader.MPA_HEADER_LENGTH + ulpLength));
        out.put(DdpHeader.OFFSET_DDP_CONTROL, (byte) DdpHeader.ddpControl(false, last));
        out.put(DdpHeader.OFFSET_RDMAP_CONTROL, (byte) DdpHeader.rdmapControl(opcode));
        out.putInt(OFFSET_ULP_RESERVED, ulpReserved);
        out.putInt(OFFSET_QN, queueNumber);
        out.putInt(OFFSET_MSN, msn);
        out.putInt(OFFSET_MO, messageOffset);
    }

    public static int ulpReserved(ByteBuffer fpdu) {
        return fpdu.getInt(OFFSET_ULP_RESERVED);
    }

    public static int queueNumber(ByteBuffer fpdu) {
        return fpdu.getInt(OFFSET_QN);
    }

    public static int msn(ByteBuffer fpdu) {
        return fpdu.getInt(OFFSET_MSN);
    }

    public static int messageOffset(ByteBuffer fpdu) {
        return fpdu.getInt(OFFSET_MO);
    }
}
