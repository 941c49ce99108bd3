package io.nvmf4j.target.rdma;

import io.nvmf4j.verbs.MemoryRegion;

/**
 * A poll group's data buffers: its registered {@link BufferPool}, the requests waiting for a block of it, oldest
 * first (SPDK's {@code group->pending_buf_queue}, the NEED_BUFFER step of {@code nvmf_rdma_request_process()}), and
 * the requests that were given a block after they waited. A request given its block is only marked
 * ({@link RdmaRequestState#HAVE_BUFFER}) and queued here; the poll loop takes it from {@link #nextAssigned} and runs
 * its state machine on, as SPDK's poller enters {@code nvmf_rdma_request_process()} again for its pending requests:
 * the state machine is never entered from inside itself. Runs on the poll group's thread only; both FIFOs are
 * linked through {@link RdmaRequest#nextWaiting}, so nothing allocates.
 */
final class PendingBuffers {

    private final BufferPool pool;
    /** NEED_BUFFER requests waiting for a block, oldest first. */
    private final RequestFifo waiting = new RequestFifo();
    /** HAVE_BUFFER requests given a block after they waited, for the poll loop to run on, oldest first. */
    private final RequestFifo assigned = new RequestFifo();

    PendingBuffers(BufferPool pool) {
        this.pool = pool;
    }

    BufferPool pool() {
        return pool;
    }

    MemoryRegion region() {
        return pool.region();
    }

    /**
     * A block for {@code r} now (true: it is in {@link RdmaRequestState#HAVE_BUFFER}), or false: the pool has none
     * free and {@code r} waits for one, behind every request already waiting.
     */
    boolean assignOrWait(RdmaRequest r) {
        long offset = pool.allocate(r.transferLength);
        if (offset < 0) {
            waiting.add(r);
            return false;
        }
        give(r, offset);
        return true;
    }

    /** {@code r} was given its block outside its state machine's loop: the poll loop runs it on. */
    void assignedLater(RdmaRequest r) {
        assigned.add(r);
    }

    /** The next request given a block after it waited (null when none): the poll loop runs it on. */
    RdmaRequest nextAssigned() {
        return assigned.poll();
    }

    /** See {@link PollGroup#detachBuffer}: once per timed-out backend operation, never per I/O. */
    Runnable detach(RdmaRequest r) {
        long offset = r.bufferOffset;
        if (offset < 0) {
            return null;
        }
        long length = r.transferLength;
        r.bufferOffset = -1;
        r.request.data(null);
        return () -> pool.free(offset, length);
    }

    void free(RdmaRequest r) {
        pool.free(r.bufferOffset, r.transferLength);
        r.bufferOffset = -1;
    }

    /** Hands freed buffers to waiting requests, oldest first; each is queued for the poll loop. */
    void serveWaiters() {
        while (!waiting.isEmpty()) {
            RdmaRequest r = waiting.peek();
            long offset = pool.allocate(r.transferLength);
            if (offset < 0) {
                return;
            }
            waiting.poll();
            give(r, offset);
            assigned.add(r);
        }
    }

    /** The event out of NEED_BUFFER: {@code r} holds the block at {@code offset}. */
    private void give(RdmaRequest r, long offset) {
        r.bufferOffset = offset;
        r.request.data(pool.slice(offset, r.transferLength));
        r.to(RdmaRequestState.HAVE_BUFFER);
    }

    /** Removes (and releases) the waiting and assigned requests of a queue that is going away. */
    void dropWaiters(QueueCloser queue) {
        waiting.releaseAllOf(queue);
        assigned.releaseAllOf(queue);
    }
}
