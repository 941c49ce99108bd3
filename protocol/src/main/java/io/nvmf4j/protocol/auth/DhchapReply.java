package io.nvmf4j.protocol.auth;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * DH-HMAC-CHAP_Reply, host to controller (NVMe Base 2.0, 5.3.4.x; Linux {@code struct
 * nvmf_auth_dhchap_reply_data}):
 *
 * <pre>
 *  0 AUTH_TYPE 01h | 1 AUTH_ID 02h | 2..3 reserved | 4..5 T_ID | 6 HL | 7 reserved | 8 CVALID (bit 0)
 *  9 reserved | 10..11 DHVLEN | 12..15 SEQNUM (S2; 0: no bidirectional authentication)
 *  16.. response R1 (HL bytes) | challenge C2 (HL bytes, zero when CVALID is clear) | DHVLEN bytes of g^y
 * </pre>
 */
public record DhchapReply(int tid, byte[] response, boolean challengeValid, long seqnum, byte[] challenge,
                          byte[] dhValue) implements AuthMessage {

    public static final int HEADER_SIZE = 16;
    public static final int OFFSET_HL = 6;
    public static final int OFFSET_CVALID = 8;
    public static final int OFFSET_DHVLEN = 10;
    public static final int OFFSET_SEQNUM = 12;

    public DhchapReply {
        Wire.checkUnsigned("T_ID", tid, 16);
        Wire.checkUnsigned("HL", response.length, 8);
        if (challenge.length != response.length) {
            throw new IllegalArgumentException("C2 must be HL bytes like the response");
        }
        Wire.checkUnsigned("DHVLEN", dhValue.length, 16);
    }

    @Override
    public int authType() {
        return TYPE_DHCHAP;
    }

    @Override
    public int authId() {
        return ID_REPLY;
    }

    @Override
    public int encodedSize() {
        return HEADER_SIZE + 2 * response.length + dhValue.length;
    }

    @Override
    public void encode(MemorySegment dst) {
        MemorySegment s = AuthMessage.header(dst, encodedSize(), "DH-HMAC-CHAP_Reply", TYPE_DHCHAP, ID_REPLY, tid);
        int hl = response.length;
        Wire.u8(s, OFFSET_HL, hl);
        Wire.u8(s, OFFSET_CVALID, challengeValid ? 1 : 0);
        Wire.u16(s, OFFSET_DHVLEN, dhValue.length);
        Wire.u32(s, OFFSET_SEQNUM, seqnum);
        MemorySegment.copy(MemorySegment.ofArray(response), 0, s, HEADER_SIZE, hl);
        MemorySegment.copy(MemorySegment.ofArray(challenge), 0, s, HEADER_SIZE + hl, hl);
        MemorySegment.copy(MemorySegment.ofArray(dhValue), 0, s, HEADER_SIZE + 2L * hl, dhValue.length);
    }

    /** Checks HL and DHVLEN against the bytes received, as nvmet_auth_reply() does against TL. */
    public static DhchapReply decode(MemorySegment data) {
        MemorySegment s = AuthMessage.expect(data, HEADER_SIZE, "DH-HMAC-CHAP_Reply", TYPE_DHCHAP, ID_REPLY);
        int hl = Wire.u8(s, OFFSET_HL);
        int dhvlen = Wire.u16(s, OFFSET_DHVLEN);
        if (HEADER_SIZE + 2L * hl + dhvlen > s.byteSize()) {
            throw new MalformedStructureException("DH-HMAC-CHAP_Reply: HL " + hl + " and DHVLEN " + dhvlen
                    + " exceed the " + s.byteSize() + " bytes received", OFFSET_HL);
        }
        return new DhchapReply(Wire.u16(s, OFFSET_T_ID), AuthMessage.bytes(s, HEADER_SIZE, hl),
                (Wire.u8(s, OFFSET_CVALID) & 1) != 0, Wire.u32(s, OFFSET_SEQNUM),
                AuthMessage.bytes(s, HEADER_SIZE + hl, hl), AuthMessage.bytes(s, HEADER_SIZE + 2L * hl, dhvlen));
    }
}
