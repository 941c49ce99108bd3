package io.nvmf4j.target.rdma;

/**
 * One queue's share of the poll group's data buffer pool ({@link RdmaTransportOptions#queueBufferBytes()}): over
 * it, a request waits (FIFO through {@link RdmaRequest#nextWaiting}) for this queue's own buffers to come back, so
 * one queue (one peer) cannot hold the whole pool. Within it, the request goes on to the poll group's pool (SPDK's
 * {@code nvmf_rdma_request_process()} NEED_BUFFER step, with a per-queue limit SPDK does not have). A request that
 * gets its share only when another one is released is handed to the poll loop ({@link PendingBuffers#assignedLater})
 * rather than run on from inside that release. Runs on the poll group's thread only; no allocation.
 */
final class QueueBufferQuota {

    private final long limit;
    private final PendingBuffers buffers;
    /** Pool bytes held (or waited for in the poll group's FIFO) by this queue's requests. */
    private long bufferBytesHeld;
    /** Requests waiting because this queue is at its pool limit. */
    private final RequestFifo waiting = new RequestFifo();
    /** The queue is going away: nothing waiting moves on any more. */
    private boolean closed;

    private final QueueCloser queue;

    /**
     * @param queue   gives back the requests still waiting when the queue goes away
     * @param limit   the most pool bytes the queue may hold ({@link PollGroup#queueBufferLimit()})
     * @param buffers the poll group's pool and its waiters
     */
    QueueBufferQuota(QueueCloser queue, long limit, PendingBuffers buffers) {
        this.queue = queue;
        this.limit = limit;
        this.buffers = buffers;
    }

    /**
     * NEED_BUFFER: a buffer from the pool for {@code r}, now ({@code r} moves to {@link RdmaRequestState#HAVE_BUFFER}
     * and its state machine goes on) or once the queue is under its limit and the pool has a block ({@code r} stays
     * in NEED_BUFFER; the poll loop takes it on then).
     */
    void needBuffer(RdmaRequest r) {
        long bytes = BufferPool.blockBytes(r.transferLength);
        if (!waiting.isEmpty() || bufferBytesHeld + bytes > limit) {
            waiting.add(r);
            return;
        }
        var _ = takeQuota(r, bytes);
    }

    private boolean takeQuota(RdmaRequest r, long bytes) {
        bufferBytesHeld += bytes;
        r.quotaBytes = bytes;
        return buffers.assignOrWait(r);
    }

    /** {@code r} is released: its share comes back and the requests waiting on the limit move on. */
    void released(RdmaRequest r) {
        if (r.quotaBytes != 0) {
            bufferBytesHeld -= r.quotaBytes;
            r.quotaBytes = 0;
            serveWaiters();
        }
    }

    /** Moves requests waiting on this queue's limit on, oldest first, as far as the limit allows. */
    private void serveWaiters() {
        while (!waiting.isEmpty() && !closed) {
            RdmaRequest r = waiting.peek();
            long bytes = BufferPool.blockBytes(r.transferLength);
            if (bufferBytesHeld + bytes > limit) {
                return;
            }
            waiting.poll();
            if (takeQuota(r, bytes)) {
                buffers.assignedLater(r);
            }
        }
    }

    /** The queue is going away: nothing waiting on its limit moves on any more. */
    void close() {
        closed = true;
    }

    /** Releases the requests waiting on this queue's limit (the queue is going away). */
    void dropWaiters() {
        waiting.releaseAllOf(queue);
    }
}
