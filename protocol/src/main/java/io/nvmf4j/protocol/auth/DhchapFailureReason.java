package io.nvmf4j.protocol.auth;

import java.util.Optional;

/**
 * The reason code explanation of an AUTH_Failure1/AUTH_Failure2 message (NVMe Base 2.0, 5.3.4.x "AUTH_Failure1 and
 * AUTH_Failure2 message", figure "Reason Code Explanations"; Linux {@code NVME_AUTH_DHCHAP_FAILURE_*}). The reason
 * code itself is always 01h "authentication failure" ({@link #REASON_CODE_FAILED}). {@link #label()} is a bounded
 * metric label.
 */
public enum DhchapFailureReason {
    FAILED(0x01, "failed", "authentication failed"),
    NOT_USABLE(0x02, "protocol_not_usable", "DH-HMAC-CHAP not usable"),
    CONCAT_MISMATCH(0x03, "concat_mismatch", "secure channel concatenation mismatch"),
    HASH_UNUSABLE(0x04, "hash_unusable", "hash function not usable"),
    DHGROUP_UNUSABLE(0x05, "dhgroup_unusable", "DH group not usable"),
    INCORRECT_PAYLOAD(0x06, "incorrect_payload", "incorrect payload"),
    INCORRECT_MESSAGE(0x07, "incorrect_message", "incorrect protocol message");

    /** RESCODE 01h: authentication failure (the only reason code; the explanation says which). */
    public static final int REASON_CODE_FAILED = 0x01;

    private final int code;
    private final String label;
    private final String text;

    DhchapFailureReason(int code, String label, String text) {
        this.code = code;
        this.label = label;
        this.text = text;
    }

    /** RCEXP on the wire. */
    public int code() {
        return code;
    }

    /** Lower-case metric label. */
    public String label() {
        return label;
    }

    /** Text for logs and exceptions. */
    public String text() {
        return text;
    }

    public static Optional<DhchapFailureReason> fromCode(int code) {
        for (DhchapFailureReason r : values()) {
            if (r.code == code) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    /** A received explanation, unknown values read as {@link #FAILED}. */
    public static DhchapFailureReason fromWire(int code) {
        return fromCode(code).orElse(FAILED);
    }

    @Override
    public String toString() {
        return text + String.format(" (%02xh)", code);
    }
}
