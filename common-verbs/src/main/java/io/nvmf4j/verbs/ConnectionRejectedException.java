package io.nvmf4j.verbs;

/**
 * The peer rejected a connection request (an MPA reject frame for iWARP, an RDMA_CM_EVENT_REJECTED for
 * ibverbs). Carries the peer's reject private data, e.g. the NVMe-oF RDMA CM reject status.
 */
public class ConnectionRejectedException extends VerbsException {
    private static final long serialVersionUID = 1L;

    private final byte[] privateData;

    public ConnectionRejectedException(String message, byte[] privateData) {
        super(VerbsErrorCode.CONNECTION_REFUSED, message);
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** The private data the peer sent with its reject (possibly empty, never null). */
    public byte[] privateData() {
        return privateData.clone();
    }
}
