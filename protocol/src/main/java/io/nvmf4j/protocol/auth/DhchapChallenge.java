package io.nvmf4j.protocol.auth;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * DH-HMAC-CHAP_Challenge, controller to host (NVMe Base 2.0, 5.3.4.x; Linux {@code struct
 * nvmf_auth_dhchap_challenge_data}):
 *
 * <pre>
 *  0 AUTH_TYPE 01h | 1 AUTH_ID 01h | 2..3 reserved | 4..5 T_ID | 6 HL | 7 reserved | 8 HASHID | 9 DHGID
 *  10..11 DHVLEN | 12..15 SEQNUM (S1) | 16.. C1 (HL bytes) | then DHVLEN bytes of g^x
 * </pre>
 */
public record DhchapChallenge(int tid, int hashId, int dhGroupId, long seqnum, byte[] challenge, byte[] dhValue)
        implements AuthMessage {

    public static final int HEADER_SIZE = 16;
    public static final int OFFSET_HL = 6;
    public static final int OFFSET_HASHID = 8;
    public static final int OFFSET_DHGID = 9;
    public static final int OFFSET_DHVLEN = 10;
    public static final int OFFSET_SEQNUM = 12;

    public DhchapChallenge {
        Wire.checkUnsigned("T_ID", tid, 16);
        Wire.checkUnsigned("HL", challenge.length, 8);
        Wire.checkUnsigned("DHVLEN", dhValue.length, 16);
    }

    @Override
    public int authType() {
        return TYPE_DHCHAP;
    }

    @Override
    public int authId() {
        return ID_CHALLENGE;
    }

    @Override
    public int encodedSize() {
        return HEADER_SIZE + challenge.length + dhValue.length;
    }

    @Override
    public void encode(MemorySegment dst) {
        MemorySegment s = AuthMessage.header(dst, encodedSize(), "DH-HMAC-CHAP_Challenge", TYPE_DHCHAP,
                ID_CHALLENGE, tid);
        Wire.u8(s, OFFSET_HL, challenge.length);
        Wire.u8(s, OFFSET_HASHID, hashId);
        Wire.u8(s, OFFSET_DHGID, dhGroupId);
        Wire.u16(s, OFFSET_DHVLEN, dhValue.length);
        Wire.u32(s, OFFSET_SEQNUM, seqnum);
        MemorySegment.copy(MemorySegment.ofArray(challenge), 0, s, HEADER_SIZE, challenge.length);
        MemorySegment.copy(MemorySegment.ofArray(dhValue), 0, s, HEADER_SIZE + challenge.length, dhValue.length);
    }

    public static DhchapChallenge decode(MemorySegment data) {
        MemorySegment s = AuthMessage.expect(data, HEADER_SIZE, "DH-HMAC-CHAP_Challenge", TYPE_DHCHAP,
                ID_CHALLENGE);
        int hl = Wire.u8(s, OFFSET_HL);
        int dhvlen = Wire.u16(s, OFFSET_DHVLEN);
        if (HEADER_SIZE + (long) hl + dhvlen > s.byteSize()) {
            throw new MalformedStructureException("DH-HMAC-CHAP_Challenge: HL " + hl + " and DHVLEN " + dhvlen
                    + " exceed the " + s.byteSize() + " bytes received", OFFSET_HL);
        }
        return new DhchapChallenge(Wire.u16(s, OFFSET_T_ID), Wire.u8(s, OFFSET_HASHID), Wire.u8(s, OFFSET_DHGID),
                Wire.u32(s, OFFSET_SEQNUM), AuthMessage.bytes(s, HEADER_SIZE, hl),
                AuthMessage.bytes(s, HEADER_SIZE + hl, dhvlen));
    }
}
