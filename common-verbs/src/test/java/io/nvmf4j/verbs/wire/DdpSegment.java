package io.nvmf4j.verbs.wire;

import java.nio.ByteBuffer;

/**
 * Hand-built DDP segments carrying RDMAP messages: the ULPDU of one FPDU (everything after the 2-byte MPA
 * length). Layouts from RFC 5041, 4 (DDP) and RFC 5040, 4 (RDMAP), the same as {@code struct iwarp_*} in
 * Linux siw's {@code iwarp.h} minus the leading {@code mpa_len}.
 *
 * <pre>
 * control (16 bits): T(0x8000) L(0x4000) Rsvd(4) DV(2, 0x0300) RV(2, 0x00c0) Rsvd(2) Opcode(4)
 * tagged:   control | STag(32) | TO(64) | payload                              (RDMA Write, Read Response)
 * untagged: control | RDMAP word(32) | QN(32) | MSN(32) | MO(32) | payload     (Send, Read Request, Terminate)
 * </pre>
 */
final class DdpSegment {
    static final int TAGGED = 0x8000;
    static final int LAST = 0x4000;
    static final int DDP_VERSION_1 = 1 << 8;
    static final int RDMAP_VERSION_1 = 1 << 6;

    /** RFC 5040, 4.2 opcodes. */
    static final int OP_RDMA_WRITE = 0x0;
    static final int OP_READ_REQUEST = 0x1;
    static final int OP_READ_RESPONSE = 0x2;
    static final int OP_SEND = 0x3;
    static final int OP_SEND_INVALIDATE = 0x4;
    static final int OP_SEND_SE = 0x5;
    static final int OP_SEND_SE_INVALIDATE = 0x6;
    static final int OP_TERMINATE = 0x7;

    /** RFC 5040, 5.1: untagged queue numbers. */
    static final int QN_SEND = 0;
    static final int QN_READ_REQUEST = 1;
    static final int QN_TERMINATE = 2;

    static final int TAGGED_HEADER_LENGTH = 14;
    static final int UNTAGGED_HEADER_LENGTH = 18;
    static final int READ_REQUEST_HEADER_LENGTH = 46;

    private DdpSegment() {
    }

    /** The control field of a well-formed segment: DDP version 1, RDMAP version 1. */
    static int control(boolean tagged, boolean last, int opcode) {
        return (tagged ? TAGGED : 0) | (last ? LAST : 0) | DDP_VERSION_1 | RDMAP_VERSION_1 | (opcode & 0xf);
    }

    /** A tagged segment with the given raw control field. */
    static byte[] tagged(int control, int stag, long taggedOffset, byte[] payload) {
        return ByteBuffer.allocate(TAGGED_HEADER_LENGTH + payload.length)
                .putShort((short) control).putInt(stag).putLong(taggedOffset).put(payload).array();
    }

    /** An untagged segment with the given raw control field; {@code rdmapWord} is reserved or the invalidate STag. */
    static byte[] untagged(int control, int rdmapWord, int queueNumber, int msn, int messageOffset,
            byte[] payload) {
        return ByteBuffer.allocate(UNTAGGED_HEADER_LENGTH + payload.length)
                .putShort((short) control).putInt(rdmapWord).putInt(queueNumber).putInt(msn).putInt(messageOffset)
                .put(payload).array();
    }

    /** RFC 5040, 4.4: RDMA Write, one segment, last. */
    static byte[] rdmaWrite(int sinkStag, long sinkTo, byte[] payload) {
        return tagged(control(true, true, OP_RDMA_WRITE), sinkStag, sinkTo, payload);
    }

    /** RFC 5040, 4.6: Send in one segment (MO 0), for the Send queue's message sequence number {@code msn}. */
    static byte[] send(int msn, byte[] payload) {
        return untagged(control(false, true, OP_SEND), 0, QN_SEND, msn, 0, payload);
    }

    /** RFC 5040, 4.4 (Send with Invalidate): the STag to invalidate rides in the RDMAP word. */
    static byte[] sendWithInvalidate(int msn, int invalidateStag, byte[] payload) {
        return untagged(control(false, true, OP_SEND_INVALIDATE), invalidateStag, QN_SEND, msn, 0, payload);
    }

    /** RFC 5040, 4.4: RDMA Read Request on queue 1: sink STag/TO, size, source STag/TO. */
    static byte[] readRequest(int msn, int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        return ByteBuffer.allocate(READ_REQUEST_HEADER_LENGTH)
                .putShort((short) control(false, true, OP_READ_REQUEST)).putInt(0).putInt(QN_READ_REQUEST)
                .putInt(msn).putInt(0).putInt(sinkStag).putLong(sinkTo).putInt(size).putInt(sourceStag)
                .putLong(sourceTo).array();
    }

    static int controlOf(byte[] ulpdu) {
        return ((ulpdu[0] & 0xff) << 8) | (ulpdu[1] & 0xff);
    }

    static int opcodeOf(byte[] ulpdu) {
        return controlOf(ulpdu) & 0xf;
    }

    static boolean isTagged(byte[] ulpdu) {
        return (controlOf(ulpdu) & TAGGED) != 0;
    }
}
