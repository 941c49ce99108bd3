package io.nvmf4j.protocol.tcp;

/**
 * FES, the Fatal Error Status of an H2CTermReq or C2HTermReq PDU (NVMe/TCP 1.0a, 3.6.2, "H2CTermReq PDU"; Linux
 * {@code enum nvme_tcp_fatal_error_status}). The same code 05h means "R2T Limit Exceeded" in a C2HTermReq and
 * "Data Transfer Limit Exceeded" in an H2CTermReq. For {@link #INVALID_HEADER_FIELD} and
 * {@link #UNSUPPORTED_PARAMETER} the Fatal Error Information (FEI) is the byte offset of the field in error.
 */
public enum FatalErrorStatus {
    INVALID_HEADER_FIELD(0x01),
    PDU_SEQUENCE_ERROR(0x02),
    HEADER_DIGEST_ERROR(0x03),
    DATA_OUT_OF_RANGE(0x04),
    LIMIT_EXCEEDED(0x05),
    UNSUPPORTED_PARAMETER(0x06);

    private final int code;

    FatalErrorStatus(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The status of code {@code code}, or null for a reserved one. */
    public static FatalErrorStatus of(int code) {
        for (FatalErrorStatus s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }
}
