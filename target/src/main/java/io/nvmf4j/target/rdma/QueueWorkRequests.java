package io.nvmf4j.target.rdma;

import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.QueuePair;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.VerbsException;
import java.lang.System.Logger.Level;

/**
 * What an {@link RdmaQueue} posts on its queue pair, and the count of what has not completed yet: receives for
 * command capsules (nvmet-rdma's {@code nvmet_rdma_post_recv()}), the RDMA Read of host data
 * ({@code nvmet_rdma_rw_ctx_post()}), and the response Send, chained behind the RDMA Write of read data
 * ({@code nvmet_rdma_queue_response()}; SPDK's {@code request_transfer_out()}). The request state moves stay with the
 * queue's state machine; this posts the work requests the request already holds. Runs on the poll group's thread (the
 * Connect receives on the listener's thread, before the host may send); no allocation.
 */
final class QueueWorkRequests {

    private static final System.Logger LOG = System.getLogger(RdmaQueue.class.getName());

    private final QueueCloser queue;
    private final QueueMemory memory;
    /** The poll group's data buffers, where RDMA Reads land and RDMA Writes take their data from. */
    private final MemoryRegion poolRegion;
    private volatile QueuePair qp;
    /** Posted work requests whose completion has not been seen (receives + sends + reads + writes). */
    private int outstanding;

    QueueWorkRequests(QueueCloser queue, QueueMemory memory, MemoryRegion poolRegion) {
        this.queue = queue;
        this.memory = memory;
        this.poolRegion = poolRegion;
    }

    /** The new queue pair, before the host may send: the first {@code receives} receives (Connect's). */
    void postInitialReceives(QueuePair queuePair, int receives) throws VerbsException {
        this.qp = queuePair;
        outstanding = receives;
        for (int i = 0; i < receives; i++) {
            queuePair.postReceive(memory.receive(i));
        }
    }

    /** Posts the receive of slot {@code recvSlot}; false (and the queue closing) when that failed. */
    boolean postReceive(int recvSlot) {
        try {
            qp.postReceive(memory.receive(recvSlot));
            outstanding++;
            return true;
        } catch (VerbsException e) {
            LOG.log(Level.WARNING, "{0}: posting a receive failed: {1}", queue, e.getMessage());
            queue.beginTeardown("posting a receive failed");
            return false;
        }
    }

    /** Posts the RDMA Read of {@code r}'s host data into its pool buffer; false (logged) when that failed. */
    boolean postRead(RdmaRequest r) {
        r.data.opcode(SendOpcode.RDMA_READ).local(poolRegion, r.bufferOffset, r.transferLength)
                .remote(r.remoteAddress, r.remoteKey).signaled(true).next(null);
        r.readPostedNanos = System.nanoTime();
        try {
            qp.postSend(r.data);
            r.pendingWrs = 1;
            outstanding++;
            return true;
        } catch (VerbsException e) {
            LOG.log(Level.WARNING, "{0}: posting RDMA Read failed: {1}", queue, e.getMessage());
            return false;
        }
    }

    /**
     * Posts {@code r}'s response Send (with Invalidate when the host asked for it), behind the RDMA Write of its
     * read data when {@code dataOut}; false (logged) when that failed. The Write is unsignaled, as nvmet-rdma
     * chains its rdma_rw WRs before the signaled response (nvmet_rdma_queue_response) and SPDK posts its data WR
     * for a read: the Send's completion says both are done (a send queue completes in order), so a read costs one
     * work completion, not two. A failed Write still reports (errors always do), and the Send is then flushed.
     */
    boolean postResponse(RdmaRequest r, boolean dataOut) {
        if (r.invalidateKey) {
            // the key in both fields: rdma-core's siw provider reads it from wr.rdma.rkey (seen in interop/)
            r.send.opcode(SendOpcode.SEND_WITH_INVALIDATE).invalidateRkey(r.remoteKey).rkey(r.remoteKey);
        } else {
            r.send.opcode(SendOpcode.SEND).invalidateRkey(0).rkey(0);
        }
        r.responsePostedNanos = System.nanoTime();
        try {
            if (dataOut) {
                r.data.opcode(SendOpcode.RDMA_WRITE).local(poolRegion, r.bufferOffset, r.transferLength)
                        .remote(r.remoteAddress, r.remoteKey).signaled(false).next(r.send);
                qp.postSend(r.data);
                r.pendingWrs = 1;
                outstanding++;
            } else {
                qp.postSend(r.send);
                r.pendingWrs = 1;
                outstanding++;
            }
            return true;
        } catch (VerbsException e) {
            LOG.log(Level.WARNING, "{0}: posting the response failed: {1}", queue, e.getMessage());
            return false;
        }
    }

    /** A signaled work request completed, or any one flushed or failed (unsignaled ones report only then). */
    void completed() {
        outstanding--;
    }

    /** True once every posted work request has completed (flushed). */
    boolean quiet() {
        return outstanding <= 0;
    }

    /** Closes the queue pair when there is no connection to close it with (accept failed half-way). */
    void closeQueuePair() {
        QueuePair q = qp;
        if (q != null) {
            q.close();
        }
    }
}
