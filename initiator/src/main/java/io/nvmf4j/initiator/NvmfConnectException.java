package io.nvmf4j.initiator;

/**
 * A queue could not be connected: the address refused or did not answer within the connect timeout, or the target
 * rejected the RDMA CM request (the message names the NVMe RDMA CM reject status, e.g.
 * {@code NVME_RDMA_CM_INVALID_HSQSIZE}).
 */
public class NvmfConnectException extends NvmfException {
    private static final long serialVersionUID = 1L;

    public NvmfConnectException(String message) {
        super(message);
    }

    public NvmfConnectException(String message, Throwable cause) {
        super(message, cause);
    }
}
