package io.nvmf4j.target;

import io.nvmf4j.protocol.auth.DhchapFailureReason;

/**
 * How one DH-HMAC-CHAP transaction on one queue ended: the bounded label set of
 * {@code nvmf4j_auth_total{result, reason}}. A peer's input never becomes a label.
 */
public enum AuthOutcome {
    SUCCESS("success", "none"),
    FAILED("failure", DhchapFailureReason.FAILED.label()),
    PROTOCOL_NOT_USABLE("failure", DhchapFailureReason.NOT_USABLE.label()),
    CONCAT_MISMATCH("failure", DhchapFailureReason.CONCAT_MISMATCH.label()),
    HASH_UNUSABLE("failure", DhchapFailureReason.HASH_UNUSABLE.label()),
    DHGROUP_UNUSABLE("failure", DhchapFailureReason.DHGROUP_UNUSABLE.label()),
    INCORRECT_PAYLOAD("failure", DhchapFailureReason.INCORRECT_PAYLOAD.label()),
    INCORRECT_MESSAGE("failure", DhchapFailureReason.INCORRECT_MESSAGE.label()),
    /** The exchange did not finish within the authentication timeout (the peer stopped). */
    TIMEOUT("failure", "timeout"),
    /** Authentication Send/Receive from a host that has no key on this subsystem. */
    NO_KEY("failure", "no_key"),
    /** The target's authentication executor had no room for the step (too many exchanges at once). */
    BUSY("failure", "busy");

    private final String result;
    private final String reason;

    AuthOutcome(String result, String reason) {
        this.result = result;
        this.reason = reason;
    }

    public String result() {
        return result;
    }

    public String reason() {
        return reason;
    }

    public static AuthOutcome of(DhchapFailureReason reason) {
        return switch (reason) {
            case FAILED -> FAILED;
            case NOT_USABLE -> PROTOCOL_NOT_USABLE;
            case CONCAT_MISMATCH -> CONCAT_MISMATCH;
            case HASH_UNUSABLE -> HASH_UNUSABLE;
            case DHGROUP_UNUSABLE -> DHGROUP_UNUSABLE;
            case INCORRECT_PAYLOAD -> INCORRECT_PAYLOAD;
            case INCORRECT_MESSAGE -> INCORRECT_MESSAGE;
        };
    }
}
