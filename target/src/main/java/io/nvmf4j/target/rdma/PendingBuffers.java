package io.nvmf4j.target.rdma;

import io.nvmf4j.verbs.MemoryRegion;

/**
 * A poll group's data buffers: its registered {@link BufferPool} and the requests waiting for a block of it, oldest
 * first (SPDK's {@code group->pending_buf_queue}, the NEED_BUFFER step of {@code nvmf_rdma_request_process()}).
 * Poll thread only; the FIFO is linked through {@link RdmaRequest#nextWaiting}, so nothing allocates.
 */
final class PendingBuffers {

    private final PollGroup group;
    private final BufferPool pool;
    private final RequestFifo waiting = new RequestFifo();

    PendingBuffers(PollGroup group, BufferPool pool) {
        this.group = group;
        this.pool = pool;
    }

    BufferPool pool() {
        return pool;
    }

    MemoryRegion region() {
        return pool.region();
    }

    /** A block for {@code r} now (the queue is told at once), or false: the pool has none free. */
    boolean tryAssign(RdmaRequest r) {
        long offset = pool.allocate(r.transferLength);
        if (offset < 0) {
            return false;
        }
        r.bufferOffset = offset;
        r.queue.bufferAssigned(r, pool.slice(offset, r.transferLength));
        return true;
    }

    /** {@code r} waits for a block, behind every request already waiting. */
    void await(RdmaRequest r) {
        waiting.add(r);
    }

    void free(RdmaRequest r) {
        pool.free(r.bufferOffset, r.transferLength);
        r.bufferOffset = -1;
    }

    /** Hands freed buffers to waiting requests, oldest first. */
    void serveWaiters() {
        while (!waiting.isEmpty()) {
            RdmaRequest r = waiting.peek();
            long offset = pool.allocate(r.transferLength);
            if (offset < 0) {
                return;
            }
            waiting.poll();
            r.bufferOffset = offset;
            try {
                r.queue.bufferAssigned(r, pool.slice(offset, r.transferLength));
            } catch (RuntimeException e) {
                group.failed(r.queue, e);
            }
        }
    }

    /** Removes (and releases) the waiting requests of a queue that is going away. */
    void dropWaiters(RdmaQueue queue) {
        waiting.releaseAllOf(queue);
    }
}
