package io.nvmf4j.protocol.auth;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * DH-HMAC-CHAP_Success1, controller to host (NVMe Base 2.0, 5.3.4.x; Linux {@code struct
 * nvmf_auth_dhchap_success1_data}):
 *
 * <pre>
 *  0 AUTH_TYPE 01h | 1 AUTH_ID 03h | 2..3 reserved | 4..5 T_ID | 6 HL | 7 reserved | 8 RVALID (bit 0)
 *  9..15 reserved | 16.. response R2 (HL bytes, meaningful when RVALID is set)
 * </pre>
 *
 * Like nvmet, the HL bytes of R2 are always sent (zero when RVALID is clear); the decoder accepts their absence
 * when RVALID is clear.
 *
 * @param hashLength HL
 * @param response   R2, or an empty array when RVALID is clear
 */
public record DhchapSuccess1(int tid, int hashLength, boolean responseValid, byte[] response)
        implements AuthMessage {

    public static final int HEADER_SIZE = 16;
    public static final int OFFSET_HL = 6;
    public static final int OFFSET_RVALID = 8;

    public DhchapSuccess1 {
        Wire.checkUnsigned("T_ID", tid, 16);
        Wire.checkUnsigned("HL", hashLength, 8);
        if (responseValid && response.length != hashLength) {
            throw new IllegalArgumentException("R2 must be HL bytes");
        }
    }

    @Override
    public int authType() {
        return TYPE_DHCHAP;
    }

    @Override
    public int authId() {
        return ID_SUCCESS1;
    }

    @Override
    public int encodedSize() {
        return HEADER_SIZE + hashLength;
    }

    @Override
    public void encode(MemorySegment dst) {
        MemorySegment s = AuthMessage.header(dst, encodedSize(), "DH-HMAC-CHAP_Success1", TYPE_DHCHAP,
                ID_SUCCESS1, tid);
        Wire.u8(s, OFFSET_HL, hashLength);
        Wire.u8(s, OFFSET_RVALID, responseValid ? 1 : 0);
        if (responseValid) {
            MemorySegment.copy(MemorySegment.ofArray(response), 0, s, HEADER_SIZE, hashLength);
        }
    }

    public static DhchapSuccess1 decode(MemorySegment data) {
        MemorySegment s = AuthMessage.expect(data, HEADER_SIZE, "DH-HMAC-CHAP_Success1", TYPE_DHCHAP,
                ID_SUCCESS1);
        int hl = Wire.u8(s, OFFSET_HL);
        boolean rvalid = (Wire.u8(s, OFFSET_RVALID) & 1) != 0;
        if (rvalid && HEADER_SIZE + (long) hl > s.byteSize()) {
            throw new MalformedStructureException("DH-HMAC-CHAP_Success1: HL " + hl + " exceeds the "
                    + s.byteSize() + " bytes received", OFFSET_HL);
        }
        return new DhchapSuccess1(Wire.u16(s, OFFSET_T_ID), hl, rvalid,
                rvalid ? AuthMessage.bytes(s, HEADER_SIZE, hl) : new byte[0]);
    }
}
