package io.nvmf4j.verbs;

/**
 * A work completion ({@code struct ibv_wc}). Mutable and reused: the application allocates an array of them once
 * and {@link CompletionQueue#poll(WorkCompletion[])} overwrites them. Providers fill it with
 * {@link #set(long, WcStatus, WcOpcode, int, int)} and {@link #invalidated(int)}.
 */
public final class WorkCompletion {
    private long wrId;
    private WcStatus status = WcStatus.SUCCESS;
    private WcOpcode opcode = WcOpcode.SEND;
    private int byteLength;
    private int queuePairNumber;
    private boolean withInvalidate;
    private int invalidatedRkey;
    private int vendorError;

    /** A blank completion (SUCCESS, SEND, zeros) for a provider to fill. */
    public WorkCompletion() {
    }

    /** The {@code wrId} of the completed work request. */
    public long wrId() {
        return wrId;
    }

    public WcStatus status() {
        return status;
    }

    /** What completed. For error completions it reflects the work request when known (ibv leaves it undefined). */
    public WcOpcode opcode() {
        return opcode;
    }

    /** Bytes received (RECV) or transferred (RDMA_READ). */
    public int byteLength() {
        return byteLength;
    }

    /** The number of the queue pair the work request was posted on (one CQ may serve many). */
    public int queuePairNumber() {
        return queuePairNumber;
    }

    /** True for a RECV completion of a Send with Invalidate ({@code IBV_WC_WITH_INV}). */
    public boolean withInvalidate() {
        return withInvalidate;
    }

    /** The rkey the peer invalidated when {@link #withInvalidate()} ({@code wc.invalidated_rkey}). */
    public int invalidatedRkey() {
        return invalidatedRkey;
    }

    /**
     * Provider-specific detail for errors ({@code vendor_err}); softiwarp puts the RFC 5040 Terminate
     * layer/type/code here as {@code (layer << 12) | (etype << 8) | ecode} when a Terminate caused the error.
     */
    public int vendorError() {
        return vendorError;
    }

    /** For providers: fills the completion; clears the invalidate flag and vendor error. */
    public WorkCompletion set(long wrId, WcStatus status, WcOpcode opcode, int byteLength, int queuePairNumber) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLength = byteLength;
        this.queuePairNumber = queuePairNumber;
        this.withInvalidate = false;
        this.invalidatedRkey = 0;
        this.vendorError = 0;
        return this;
    }

    /** For providers: marks the completion as of a Send with Invalidate of {@code rkey}. */
    public WorkCompletion invalidated(int rkey) {
        this.withInvalidate = true;
        this.invalidatedRkey = rkey;
        return this;
    }

    /** For providers: sets the vendor error. */
    public WorkCompletion vendorError(int vendorError) {
        this.vendorError = vendorError;
        return this;
    }

    /** For providers: copies another completion. */
    public WorkCompletion copyFrom(WorkCompletion other) {
        this.wrId = other.wrId;
        this.status = other.status;
        this.opcode = other.opcode;
        this.byteLength = other.byteLength;
        this.queuePairNumber = other.queuePairNumber;
        this.withInvalidate = other.withInvalidate;
        this.invalidatedRkey = other.invalidatedRkey;
        this.vendorError = other.vendorError;
        return this;
    }

    @Override
    public String toString() {
        return "WC[wrId=" + wrId + ", " + status + ", " + opcode + ", len=" + byteLength + ", qp=" + queuePairNumber
                + (withInvalidate ? ", inv=0x" + Integer.toHexString(invalidatedRkey) : "")
                + (vendorError != 0 ? ", vendor=0x" + Integer.toHexString(vendorError) : "") + "]";
    }
}
