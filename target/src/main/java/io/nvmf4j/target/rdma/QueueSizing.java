package io.nvmf4j.target.rdma;

import io.nvmf4j.verbs.QueuePairAttributes;

/**
 * How much of the RDMA resources one {@link RdmaQueue} of {@code recvEntries} receive buffers (HRQSIZE) takes, as
 * nvmet-rdma's {@code nvmet_rdma_create_queue_ib()} sizes its queue pair: a send work request for the data transfer
 * and one for the response Send of each of its request contexts (twice as many as receives), and a completion queue
 * entry for every work request that may be outstanding at once. Before its Connect a queue holds the room of
 * {@link #CONNECT_RECEIVES} receives only. Pure arithmetic, used on the listener's thread and the poll group's.
 */
final class QueueSizing {

    /** Receive buffers posted before Connect: a host sends nothing but its Connect until that is answered. */
    static final int CONNECT_RECEIVES = 1;

    private QueueSizing() {
    }

    /** Send-queue work requests a queue of {@code recvEntries} needs: a data transfer and a Send per request. */
    static int sendWrs(int recvEntries) {
        return 2 * 2 * recvEntries + 1;
    }

    /** Completion queue entries the queue may occupy at once. */
    static int completionQueueNeeds(int recvEntries) {
        return recvEntries + sendWrs(recvEntries);
    }

    /** The queue pair of a queue of {@code recvEntries}: one SGE each way, the RDMA Read depths given. */
    static QueuePairAttributes queuePairAttributes(int recvEntries, int ird, int ord) {
        return new QueuePairAttributes(sendWrs(recvEntries), recvEntries, 1, 1, 0, ird, ord);
    }
}
