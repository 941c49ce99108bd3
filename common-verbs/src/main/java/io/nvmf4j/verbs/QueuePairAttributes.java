package io.nvmf4j.verbs;

/**
 * Sizes of a reliable connected queue pair ({@code ibv_qp_cap}) and its RDMA Read resources.
 *
 * @param maxSendWr     send queue depth
 * @param maxRecvWr     receive queue depth
 * @param maxSendSge    most SG elements per send work request
 * @param maxRecvSge    most SG elements per receive work request
 * @param maxInlineData most inline bytes per send
 * @param ird           inbound RDMA Read queue depth: Reads this side answers at once (rdma_cm
 *                      {@code responder_resources}; RFC 6581 IRD)
 * @param ord           outbound RDMA Read queue depth: Reads this side has outstanding (rdma_cm
 *                      {@code initiator_depth}; RFC 6581 ORD)
 */
public record QueuePairAttributes(
        int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData, int ird, int ord) {

    public QueuePairAttributes {
        if (maxSendWr < 1 || maxRecvWr < 1 || maxSendSge < 1 || maxRecvSge < 1 || maxInlineData < 0 || ird < 0
                || ord < 0) {
            throw new IllegalArgumentException("invalid queue pair attributes: " + maxSendWr + "/" + maxRecvWr + "/"
                    + maxSendSge + "/" + maxRecvSge + "/" + maxInlineData + "/" + ird + "/" + ord);
        }
    }

    /** Sensible defaults: 128 send and receive WRs, 4 SGEs each, no inline data, IRD = ORD = 16. */
    public static QueuePairAttributes defaults() {
        return new QueuePairAttributes(128, 128, 4, 4, 0, 16, 16);
    }

    public QueuePairAttributes withQueueDepths(int maxSendWr, int maxRecvWr) {
        return new QueuePairAttributes(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData, ird, ord);
    }

    public QueuePairAttributes withReadDepths(int ird, int ord) {
        return new QueuePairAttributes(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData, ird, ord);
    }

    public QueuePairAttributes withSge(int maxSendSge, int maxRecvSge) {
        return new QueuePairAttributes(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData, ird, ord);
    }
}
