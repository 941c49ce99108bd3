package io.nvmf4j.target.rdma;

/**
 * The clocks of one {@link RdmaQueue}, checked in the poll group's housekeeping round: the connect timeout
 * ({@link RdmaTransportOptions#connectTimeout()}, through {@link ConnectPhase}), the RDMA Read timeout
 * ({@link RdmaTransportOptions#readTimeout()}: a host that never answers the Read of its data would hold the buffer
 * for good), and the bound on the peer's taking of responses and read data ({@link TransmitProgress}). The queue
 * that breaks one loses its connection. Runs on the poll group's thread only; no allocation unless a queue is
 * rejected.
 */
final class QueueTimeouts {

    private final QueueCloser queue;
    private final ConnectPhase connect;
    private final QueueMemory memory;
    private final TransmitProgress transmit;

    QueueTimeouts(QueueCloser queue, ConnectPhase connect, QueueMemory memory, TransmitProgress transmit) {
        this.queue = queue;
        this.connect = connect;
        this.memory = memory;
        this.transmit = transmit;
    }

    /** Checks each clock of a live queue at {@code now}; the first one broken ends the connection. */
    void check(long now, long connectTimeoutNanos, long readTimeoutNanos) {
        if (connect.timedOut(now, connectTimeoutNanos)) {
            queue.reject(RejectReason.CONNECT_TIMEOUT, "no successful Connect within "
                    + connectTimeoutNanos / 1_000_000 + " ms");
            return;
        }
        for (RdmaRequest r : memory.requests()) {
            if (r != null && r.state == RdmaRequestState.TRANSFERRING_HOST_TO_CONTROLLER
                    && now - r.readPostedNanos > readTimeoutNanos) {
                queue.reject(RejectReason.READ_TIMEOUT, "RDMA Read of " + r.transferLength
                        + " bytes not answered within " + readTimeoutNanos / 1_000_000 + " ms");
                return;
            }
        }
        var _ = transmit.check(now, readTimeoutNanos);
    }
}
