package io.nvmf4j.protocol.auth;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * AUTH_Failure1 (controller to host) and AUTH_Failure2 (host to controller) (NVMe Base 2.0, 5.3.4.x; Linux
 * {@code struct nvmf_auth_dhchap_failure_data}): 8 bytes, 0 AUTH_TYPE 00h | 1 AUTH_ID F1h (Failure1) or F0h
 * (Failure2) | 2..3 reserved | 4..5 T_ID | 6 RESCODE (01h) | 7 RCEXP (the {@link DhchapFailureReason}).
 *
 * @param failure1        true for AUTH_Failure1 (sent by the controller), false for AUTH_Failure2
 * @param reasonCode      RESCODE
 * @param explanationCode RCEXP as sent (see {@link #reason()})
 */
public record AuthFailure(boolean failure1, int tid, int reasonCode, int explanationCode) implements AuthMessage {

    public static final int SIZE = 8;
    public static final int OFFSET_RESCODE = 6;
    public static final int OFFSET_RCEXP = 7;

    public AuthFailure {
        Wire.checkUnsigned("T_ID", tid, 16);
        Wire.checkUnsigned("RESCODE", reasonCode, 8);
        Wire.checkUnsigned("RCEXP", explanationCode, 8);
    }

    public static AuthFailure failure1(int tid, DhchapFailureReason reason) {
        return new AuthFailure(true, tid, DhchapFailureReason.REASON_CODE_FAILED, reason.code());
    }

    public static AuthFailure failure2(int tid, DhchapFailureReason reason) {
        return new AuthFailure(false, tid, DhchapFailureReason.REASON_CODE_FAILED, reason.code());
    }

    /** The explanation, unknown codes read as {@link DhchapFailureReason#FAILED}. */
    public DhchapFailureReason reason() {
        return DhchapFailureReason.fromWire(explanationCode);
    }

    @Override
    public int authType() {
        return TYPE_COMMON;
    }

    @Override
    public int authId() {
        return failure1 ? ID_FAILURE1 : ID_FAILURE2;
    }

    @Override
    public int encodedSize() {
        return SIZE;
    }

    @Override
    public void encode(MemorySegment dst) {
        MemorySegment s = AuthMessage.header(dst, SIZE, failure1 ? "AUTH_Failure1" : "AUTH_Failure2", TYPE_COMMON,
                authId(), tid);
        Wire.u8(s, OFFSET_RESCODE, reasonCode);
        Wire.u8(s, OFFSET_RCEXP, explanationCode);
    }

    public static AuthFailure decode(MemorySegment data) {
        int id = AuthMessage.peekId(data);
        boolean f1 = id == ID_FAILURE1;
        MemorySegment s = AuthMessage.expect(data, SIZE, f1 ? "AUTH_Failure1" : "AUTH_Failure2", TYPE_COMMON,
                f1 ? ID_FAILURE1 : ID_FAILURE2);
        return new AuthFailure(f1, Wire.u16(s, OFFSET_T_ID), Wire.u8(s, OFFSET_RESCODE), Wire.u8(s, OFFSET_RCEXP));
    }

    @Override
    public String toString() {
        return (failure1 ? "AUTH_Failure1" : "AUTH_Failure2") + "[tid=" + tid + ", " + reason() + "]";
    }
}
