package io.nvmf4j.verbs.softiwarp.ddp;

import java.nio.ByteBuffer;

/**
 * The tagged DDP segment header (RFC 5041 4.3 Figure 4; siw {@code struct iwarp_ctrl_tagged}): after the
 * 4 control bytes of {@link DdpHeader}, the 32-bit Data Sink STag and the 64-bit Data Sink Tagged Offset.
 * RDMA Write and RDMA Read Response use it; 16 bytes including the MPA length.
 */
public final class DdpTaggedHeader {
    private DdpTaggedHeader() {
    }

    public static final int OFFSET_STAG = 4;
    public static final int OFFSET_TO = 8;
    /** Header length including the MPA length field. */
    public static final int LENGTH = 16;

    /** Writes a tagged header for {@code payloadLength} bytes at the buffer's start. */
    public static void encode(ByteBuffer out, int opcode, boolean last, int stag, long taggedOffset,
                              int payloadLength) {
        out.putShort(DdpHeader.OFFSET_MPA_LENGTH, (short) (LENGTH - DdpHeader.MPA_HEADER_LENGTH + payloadLength));
        out.put(DdpHeader.OFFSET_DDP_CONTROL, (byte) DdpHeader.ddpControl(true, last));
        out.put(DdpHeader.OFFSET_RDMAP_CONTROL, (byte) DdpHeader.rdmapControl(opcode));
        out.putInt(OFFSET_STAG, stag);
        out.putLong(OFFSET_TO, taggedOffset);
    }

    public static int stag(ByteBuffer fpdu) {
        return fpdu.getInt(OFFSET_STAG);
    }

    public static long taggedOffset(ByteBuffer fpdu) {
        return fpdu.getLong(OFFSET_TO);
    }
}
