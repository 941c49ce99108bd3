package io.nvmf4j.target.rdma;

/**
 * Requests waiting their turn, oldest first, linked through {@link RdmaRequest#nextWaiting} so that waiting allocates
 * nothing (SPDK keeps such requests on {@code STAILQ}s the same way). A request is in at most one of them at a time:
 * first its queue's share of the pool ({@link QueueBufferQuota}), then the pool itself ({@link PendingBuffers}), then
 * the requests given a buffer that the poll loop runs on. Runs on the poll group's thread only.
 */
final class RequestFifo {

    private RdmaRequest head;
    private RdmaRequest tail;

    boolean isEmpty() {
        return head == null;
    }

    /** The oldest request, left in place (null when empty). */
    RdmaRequest peek() {
        return head;
    }

    void add(RdmaRequest r) {
        r.nextWaiting = null;
        if (tail == null) {
            head = r;
        } else {
            tail.nextWaiting = r;
        }
        tail = r;
    }

    /** Takes the oldest request out (null when empty). */
    RdmaRequest poll() {
        RdmaRequest r = head;
        if (r != null) {
            head = r.nextWaiting;
            if (head == null) {
                tail = null;
            }
            r.nextWaiting = null;
        }
        return r;
    }

    /** Takes every request of {@code queue} out and releases it (the queue is going away). */
    void releaseAllOf(QueueCloser queue) {
        RdmaRequest prev = null;
        RdmaRequest r = head;
        while (r != null) {
            RdmaRequest next = r.nextWaiting;
            if (r.queue == queue) {
                if (prev == null) {
                    head = next;
                } else {
                    prev.nextWaiting = next;
                }
                if (tail == r) {
                    tail = prev;
                }
                r.nextWaiting = null;
                queue.release(r);
            } else {
                prev = r;
            }
            r = next;
        }
    }
}
