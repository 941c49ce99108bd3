package io.nvmf4j.protocol.auth;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * DH-HMAC-CHAP_Success2, host to controller after it verified the controller's response (NVMe Base 2.0,
 * 5.3.4.x; Linux {@code struct nvmf_auth_dhchap_success2_data}): 16 bytes, 0 AUTH_TYPE 01h | 1 AUTH_ID 04h |
 * 2..3 reserved | 4..5 T_ID | 6..15 reserved.
 */
public record DhchapSuccess2(int tid) implements AuthMessage {

    public static final int SIZE = 16;

    public DhchapSuccess2 {
        Wire.checkUnsigned("T_ID", tid, 16);
    }

    @Override
    public int authType() {
        return TYPE_DHCHAP;
    }

    @Override
    public int authId() {
        return ID_SUCCESS2;
    }

    @Override
    public int encodedSize() {
        return SIZE;
    }

    @Override
    public void encode(MemorySegment dst) {
        AuthMessage.header(dst, SIZE, "DH-HMAC-CHAP_Success2", TYPE_DHCHAP, ID_SUCCESS2, tid);
    }

    public static DhchapSuccess2 decode(MemorySegment data) {
        MemorySegment s = AuthMessage.expect(data, SIZE, "DH-HMAC-CHAP_Success2", TYPE_DHCHAP, ID_SUCCESS2);
        return new DhchapSuccess2(Wire.u16(s, OFFSET_T_ID));
    }
}
