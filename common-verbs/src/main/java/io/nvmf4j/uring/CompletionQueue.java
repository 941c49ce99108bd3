package io.nvmf4j.uring;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The CQ side of a ring, as liburing's {@code io_uring_for_each_cqe} and {@code io_uring_cq_advance}: the kernel
 * stores {@code *tail} with release after writing a CQE, so it is read here with acquire before the CQEs it covers;
 * {@code *head} is stored with release after they are read, so the kernel does not overwrite a CQE still being read.
 */
final class CompletionQueue {
    private static final VarHandle INT = JAVA_INT.varHandle();

    private final MemorySegment ring;
    private final long head;
    private final long tail;
    private final long cqes;
    private final int mask;
    /** This side is the only writer of {@code *head}: its value is kept here. */
    private int localHead;

    CompletionQueue(RingMemory memory, RingParams params) {
        RingParams.CqOffsets off = params.cq();
        this.ring = memory.cqRing();
        this.head = off.head();
        this.tail = off.tail();
        this.cqes = off.cqes();
        this.mask = ring.get(JAVA_INT, off.ringMask());
        this.localHead = ring.get(JAVA_INT, off.head());
    }

    /**
     * Hands every CQE now in the ring to {@code handler} and advances the head once, past every CQE handed out
     * (also when the handler throws: the one it threw on counts as delivered).
     */
    int reap(CompletionHandler handler) {
        int end = (int) INT.getAcquire(ring, tail);
        int start = localHead;
        if (start == end) {
            return 0;
        }
        int at = start;
        try {
            while (at != end) {
                long cqe = cqes + (at & mask) * Cqe.SIZE;
                long userData = ring.get(JAVA_LONG, cqe + Cqe.USER_DATA);
                int res = ring.get(JAVA_INT, cqe + Cqe.RES);
                int flags = ring.get(JAVA_INT, cqe + Cqe.FLAGS);
                at++;
                handler.completed(userData, res, flags);
            }
        } finally {
            localHead = at;
            INT.setRelease(ring, head, at);
        }
        return at - start;
    }
}
