package io.nvmf4j.protocol.auth;

/** A DH-HMAC-CHAP transaction failed: the reason code explanation and a detail that never contains a secret. */
public final class DhchapException extends Exception {
    private static final long serialVersionUID = 1L;

    private final DhchapFailureReason reason;
    private final boolean reportedByPeer;

    public DhchapException(DhchapFailureReason reason, boolean reportedByPeer, String detail) {
        super(detail);
        this.reason = reason;
        this.reportedByPeer = reportedByPeer;
    }

    public DhchapFailureReason reason() {
        return reason;
    }

    /** True when the peer sent the AUTH_Failure message; false when this side found the fault. */
    public boolean reportedByPeer() {
        return reportedByPeer;
    }
}
