package io.nvmf4j.target.tcp;

/**
 * One queue's share of its poll group's data buffers ({@link TcpBufferPool}), the TCP twin of the RDMA transport's
 * {@code QueueBufferQuota}: over it, a request waits (FIFO through {@link TcpRequest#nextWaiting}) for this queue's
 * own buffers to come back, so one connection (one peer) cannot hold the whole pool with writes whose H2CData never
 * comes or reads it never takes off its socket, and other hosts on the poll group still find buffers. Within it, the
 * request goes on to the poll group's pool and its waiters (SPDK's {@code nvmf_tcp_req_process()} NEED_BUFFER
 * step, with a per-queue limit SPDK does not have). The share is {@link TcpPollGroup#queueBufferLimit()}; a
 * connection that holds it without progress is closed by its R2T and transmit bounds
 * ({@link TcpQueue#checkTimeouts}), one that holds more than half of it in data its peer takes too slowly, by the
 * transmit memory bound there. A request that gets its share only when another one is released goes to the
 * poll group's waiters, and the poll loop gives it its buffer, rather than run on from inside that release (which
 * can be a transmit completion).
 *
 * <p>A twin, not the RDMA class: that one moves {@code RdmaRequest}s through the RDMA transport's
 * {@code RequestFifo} and {@code PendingBuffers}, package-private to its transport; sharing it would tie the two
 * transports' request types together for a few lines of accounting. Poll-group thread only; no allocation.
 */
final class TcpBufferQuota {

    private final TcpPollGroup group;
    private final long limit;
    /** Pool bytes held (or waited for in the poll group's FIFO) by this queue's requests. */
    private long held;
    /** Requests waiting because this queue is at its limit, oldest first. */
    private TcpRequest head;
    private TcpRequest tail;
    /** The queue is going away: nothing waiting moves on any more. */
    private boolean closed;

    TcpBufferQuota(TcpPollGroup group) {
        this.group = group;
        this.limit = group.queueBufferLimit();
    }

    /** The queue's share of the pool, in bytes. */
    long limit() {
        return limit;
    }

    /**
     * NEED_BUFFER: a pool buffer for {@code r}'s {@link TcpRequest#transferLength} bytes, now ({@code r} goes on
     * through {@link TcpQueue#haveBuffer}) or once the queue is under its limit and the pool has a block.
     */
    void needBuffer(TcpRequest r) {
        r.state = TcpRequest.State.NEED_BUFFER;
        long bytes = TcpBufferPool.blockBytes(r.transferLength);
        if (head != null || held + bytes > limit) {
            add(r);
            return;
        }
        held += bytes;
        r.quotaBytes = bytes;
        DataBlock b = group.takeBuffer(r.transferLength);
        if (b == null) {
            group.waitForBuffer(r);
        } else {
            r.queue.haveBuffer(r, b);
        }
    }

    /**
     * {@code r} is released: its share comes back and the requests waiting on the limit move on to the poll
     * group's waiters, oldest first, as far as the limit allows; one still waiting on the limit leaves it.
     */
    void released(TcpRequest r) {
        if (r.quotaBytes == 0) {
            if (r.state == TcpRequest.State.NEED_BUFFER) {
                remove(r);
            }
            return;
        }
        held -= r.quotaBytes;
        r.quotaBytes = 0;
        while (head != null && !closed) {
            long bytes = TcpBufferPool.blockBytes(head.transferLength);
            if (held + bytes > limit) {
                return;
            }
            TcpRequest w = head;
            remove(w);
            held += bytes;
            w.quotaBytes = bytes;
            group.waitForBuffer(w);
        }
    }

    /** The queue is going away: nothing waiting on its limit moves on any more. */
    void close() {
        closed = true;
    }

    private void add(TcpRequest r) {
        r.nextWaiting = null;
        if (tail == null) {
            head = r;
        } else {
            tail.nextWaiting = r;
        }
        tail = r;
    }

    private void remove(TcpRequest r) {
        TcpRequest prev = null;
        for (TcpRequest w = head; w != null; prev = w, w = w.nextWaiting) {
            if (w == r) {
                if (prev == null) {
                    head = r.nextWaiting;
                } else {
                    prev.nextWaiting = r.nextWaiting;
                }
                if (tail == r) {
                    tail = prev;
                }
                r.nextWaiting = null;
                return;
            }
        }
    }
}
