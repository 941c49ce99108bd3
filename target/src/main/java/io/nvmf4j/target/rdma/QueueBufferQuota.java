package io.nvmf4j.target.rdma;

/**
 * One queue's share of the poll group's data buffer pool ({@link RdmaTransportOptions#queueBufferBytes()}): over
 * it, a request waits (FIFO through {@link RdmaRequest#nextWaiting}) for this queue's own buffers to come back, so
 * one queue (one peer) cannot hold the whole pool. Within it, the request goes on to the poll group's pool (SPDK's
 * {@code nvmf_rdma_request_process()} NEED_BUFFER step, with a per-queue limit SPDK does not have). Poll-group
 * thread only; no allocation.
 */
final class QueueBufferQuota {

    private final RdmaQueue queue;
    /** Pool bytes held (or waited for in the poll group's FIFO) by this queue's requests. */
    private long bufferBytesHeld;
    /** Requests waiting because this queue is at its pool limit. */
    private RdmaRequest quotaHead;
    private RdmaRequest quotaTail;
    private boolean servingQuota;

    QueueBufferQuota(RdmaQueue queue) {
        this.queue = queue;
    }

    /** NEED_BUFFER: a buffer from the pool for {@code r}, now or once the queue is under its limit. */
    void needBuffer(RdmaRequest r) {
        long bytes = BufferPool.blockBytes(r.transferLength);
        if (quotaHead != null || bufferBytesHeld + bytes > queue.group.queueBufferLimit()) {
            r.nextWaiting = null;
            if (quotaTail == null) {
                quotaHead = r;
            } else {
                quotaTail.nextWaiting = r;
            }
            quotaTail = r;
            return;
        }
        takeQuota(r, bytes);
    }

    private void takeQuota(RdmaRequest r, long bytes) {
        bufferBytesHeld += bytes;
        r.quotaBytes = bytes;
        if (!queue.group.tryAssignBuffer(r)) {
            queue.group.waitForBuffer(r);
        }
    }

    /** {@code r} is released: its share comes back and the requests waiting on the limit move on. */
    void released(RdmaRequest r) {
        if (r.quotaBytes != 0) {
            bufferBytesHeld -= r.quotaBytes;
            r.quotaBytes = 0;
            if (quotaHead != null) {
                serveWaiters();
            }
        }
    }

    /** Moves requests waiting on this queue's limit on, oldest first, as far as the limit allows. */
    private void serveWaiters() {
        if (servingQuota) {
            return;
        }
        servingQuota = true;
        try {
            while (quotaHead != null && queue.state() == RdmaQueue.State.LIVE) {
                RdmaRequest r = quotaHead;
                long bytes = BufferPool.blockBytes(r.transferLength);
                if (bufferBytesHeld + bytes > queue.group.queueBufferLimit()) {
                    return;
                }
                quotaHead = r.nextWaiting;
                if (quotaHead == null) {
                    quotaTail = null;
                }
                r.nextWaiting = null;
                takeQuota(r, bytes);
            }
        } finally {
            servingQuota = false;
        }
    }

    /** Releases the requests waiting on this queue's limit (the queue is going away). */
    void dropWaiters() {
        RdmaRequest r = quotaHead;
        quotaHead = null;
        quotaTail = null;
        while (r != null) {
            RdmaRequest next = r.nextWaiting;
            r.nextWaiting = null;
            queue.release(r);
            r = next;
        }
    }
}
