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
    private final RequestFifo waiting = new RequestFifo();
    private boolean servingQuota;

    QueueBufferQuota(RdmaQueue queue) {
        this.queue = queue;
    }

    /** NEED_BUFFER: a buffer from the pool for {@code r}, now or once the queue is under its limit. */
    void needBuffer(RdmaRequest r) {
        long bytes = BufferPool.blockBytes(r.transferLength);
        if (!waiting.isEmpty() || bufferBytesHeld + bytes > queue.group.queueBufferLimit()) {
            waiting.add(r);
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
            if (!waiting.isEmpty()) {
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
            while (!waiting.isEmpty() && queue.state() == RdmaQueue.State.LIVE) {
                RdmaRequest r = waiting.peek();
                long bytes = BufferPool.blockBytes(r.transferLength);
                if (bufferBytesHeld + bytes > queue.group.queueBufferLimit()) {
                    return;
                }
                waiting.poll();
                takeQuota(r, bytes);
            }
        } finally {
            servingQuota = false;
        }
    }

    /** Releases the requests waiting on this queue's limit (the queue is going away). */
    void dropWaiters() {
        waiting.releaseAllOf(queue);
    }
}
