package io.nvmf4j.initiator;

import io.nvmf4j.protocol.auth.DhchapFailureReason;

/**
 * DH-HMAC-CHAP authentication of a queue failed (NVMe Base 2.0, 8.13): the controller refused the host's key
 * (AUTH_Failure1), the controller could not prove its own key (bidirectional), the exchange broke a rule, or
 * the controller requires authentication and no secret was given. The message names the queue and the reason,
 * never a key.
 */
public class NvmfAuthenticationException extends NvmfConnectException {
    private static final long serialVersionUID = 1L;

    private final transient DhchapFailureReason reason;

    public NvmfAuthenticationException(String message, DhchapFailureReason reason) {
        super(message);
        this.reason = reason;
    }

    public NvmfAuthenticationException(String message, DhchapFailureReason reason, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** The reason code explanation of the failure ({@link DhchapFailureReason#FAILED} when none applies). */
    public DhchapFailureReason reason() {
        return reason;
    }
}
