package io.nvmf4j.hostile;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * DDP and RDMAP headers, hand-encoded from the RFCs (big-endian, network order). This is the bytes of one ULPDU:
 * everything an MPA FPDU carries between its 2-byte length and its pad/CRC ({@link MpaPeer} adds those).
 *
 * <ul>
 *   <li>RFC 5041 4.2: the DDP control byte, T (tagged) 0x80, L (last) 0x40, reserved bits, DV = 1 in the low two
 *       bits; RFC 5040 4.2: the RDMAP control byte, RV = 1 in the top two bits, the opcode in the low four.</li>
 *   <li>RFC 5041 4.3 tagged buffer model header: control bytes, STag (4), Tagged Offset (8): 14 bytes.</li>
 *   <li>RFC 5041 4.4 untagged buffer model header: control bytes, 4 bytes reserved for the ULP (RFC 5040 4.3:
 *       the Invalidate STag of a Send with Invalidate), QN (4), MSN (4), MO (4): 18 bytes.</li>
 *   <li>RFC 5040 4.4 RDMA Read Request header behind an untagged header on QN 1: Data Sink STag (4), Data Sink
 *       Tagged Offset (8), RDMA Read Message Size (4), Data Source STag (4), Data Source Tagged Offset (8).</li>
 *   <li>RFC 5040 4.8 Terminate header on QN 2: Layer (4 bits), Error Type (4 bits), Error Code (8 bits), then the
 *       Hdrct/M/D/R bits and reserved bits.</li>
 * </ul>
 * The opcodes are RFC 5040 4.2's table (Linux siw {@code enum rdma_opcode} in iwarp.h has the same values).
 */
final class DdpRdmapFrames {
    private DdpRdmapFrames() {
    }

    static final int RDMA_WRITE = 0;
    static final int RDMA_READ_REQUEST = 1;
    static final int RDMA_READ_RESPONSE = 2;
    static final int SEND = 3;
    static final int SEND_WITH_INVALIDATE = 4;
    static final int SEND_WITH_SE = 5;
    static final int SEND_WITH_SE_AND_INVALIDATE = 6;
    static final int TERMINATE = 7;

    /** RFC 5040 5.1: the three untagged queues. */
    static final int QN_SEND = 0;
    static final int QN_READ_REQUEST = 1;
    static final int QN_TERMINATE = 2;

    static final int TAGGED_HEADER = 14;
    static final int UNTAGGED_HEADER = 18;
    static final int READ_REQUEST_BODY = 28;

    static int ddpControl(boolean tagged, boolean last) {
        return (tagged ? 0x80 : 0) | (last ? 0x40 : 0) | 1;
    }

    static int rdmapControl(int opcode) {
        return (1 << 6) | (opcode & 0x0f);
    }

    /** A tagged segment (RDMA Write, Read Response). */
    static byte[] tagged(int opcode, boolean last, int stag, long taggedOffset, byte[] payload, int off, int len) {
        ByteBuffer b = ByteBuffer.allocate(TAGGED_HEADER + len).order(ByteOrder.BIG_ENDIAN);
        b.put((byte) ddpControl(true, last)).put((byte) rdmapControl(opcode)).putInt(stag).putLong(taggedOffset);
        b.put(payload, off, len);
        return b.array();
    }

    /** An untagged segment (Send variants, Read Request, Terminate). */
    static byte[] untagged(int opcode, boolean last, int invalidateStag, int qn, int msn, int mo, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(UNTAGGED_HEADER + payload.length).order(ByteOrder.BIG_ENDIAN);
        b.put((byte) ddpControl(false, last)).put((byte) rdmapControl(opcode)).putInt(invalidateStag).putInt(qn)
                .putInt(msn).putInt(mo).put(payload);
        return b.array();
    }

    /** RFC 5040 4.4: the body of an RDMA Read Request. */
    static byte[] readRequestBody(int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        return ByteBuffer.allocate(READ_REQUEST_BODY).putInt(sinkStag).putLong(sinkTo).putInt(size)
                .putInt(sourceStag).putLong(sourceTo).array();
    }

    /** RFC 5040 4.8: a Terminate header with no copied headers (Hdrct 0). */
    static byte[] terminateBody(int layer, int errorType, int errorCode) {
        return ByteBuffer.allocate(4).put((byte) ((layer << 4) | errorType)).put((byte) errorCode).putShort((short) 0)
                .array();
    }

    /** One received ULPDU, decoded. For untagged segments {@code stag}/{@code to} are 0. */
    record Segment(int opcode, boolean tagged, boolean last, int stag, long to, int invalidateStag, int qn, int msn,
                   int mo, byte[] payload) {

        /** RFC 5040 4.4 fields of a Read Request payload. */
        int sinkStag() {
            return ByteBuffer.wrap(payload).getInt(0);
        }

        long sinkTo() {
            return ByteBuffer.wrap(payload).getLong(4);
        }

        int readSize() {
            return ByteBuffer.wrap(payload).getInt(12);
        }

        int sourceStag() {
            return ByteBuffer.wrap(payload).getInt(16);
        }

        long sourceTo() {
            return ByteBuffer.wrap(payload).getLong(20);
        }

        /** RFC 5040 4.8: layer (0 RDMAP, 1 DDP, 2 LLP/MPA), error type and code of a Terminate. */
        int terminateLayer() {
            return payload.length < 1 ? -1 : (payload[0] & 0xff) >>> 4;
        }

        int terminateType() {
            return payload.length < 1 ? -1 : payload[0] & 0x0f;
        }

        int terminateCode() {
            return payload.length < 2 ? -1 : payload[1] & 0xff;
        }

        @Override
        public String toString() {
            if (opcode == TERMINATE) {
                return String.format("Terminate(layer %d, type %d, code 0x%02x)", terminateLayer(), terminateType(),
                        terminateCode());
            }
            return (tagged ? String.format("tagged op %d stag 0x%x to 0x%x", opcode, stag, to)
                    : String.format("untagged op %d qn %d msn %d mo %d", opcode, qn, msn, mo))
                    + " len " + payload.length + (last ? " L" : "");
        }
    }

    static Segment decode(byte[] ulpdu) {
        if (ulpdu.length < 2) {
            throw new IllegalArgumentException("ULPDU of " + ulpdu.length + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(ulpdu);
        int ddp = ulpdu[0] & 0xff;
        int opcode = ulpdu[1] & 0x0f;
        boolean tagged = (ddp & 0x80) != 0;
        boolean last = (ddp & 0x40) != 0;
        if (tagged) {
            byte[] payload = java.util.Arrays.copyOfRange(ulpdu, TAGGED_HEADER, ulpdu.length);
            return new Segment(opcode, true, last, b.getInt(2), b.getLong(6), 0, -1, 0, 0, payload);
        }
        byte[] payload = java.util.Arrays.copyOfRange(ulpdu, UNTAGGED_HEADER, ulpdu.length);
        return new Segment(opcode, false, last, 0, 0, b.getInt(2), b.getInt(6), b.getInt(10), b.getInt(14), payload);
    }
}
