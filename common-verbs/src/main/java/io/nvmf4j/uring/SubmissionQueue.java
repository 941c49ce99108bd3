package io.nvmf4j.uring;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The SQ side of a ring: hands out SQE slots and publishes them, as liburing's {@code io_uring_get_sqe} and
 * {@code __io_uring_flush_sq} do. The kernel owns {@code *head} (it stores it with release after reading the SQEs,
 * so it is read here with acquire before a slot is reused); this side owns {@code *tail} and stores it with
 * release, so the kernel sees the SQE contents before the tail that covers them.
 */
final class SubmissionQueue {
    /** {@code IORING_SQ_CQ_OVERFLOW} in the SQ ring's flags: CQEs wait in the kernel's overflow list. */
    private static final int SQ_CQ_OVERFLOW = 1 << 1;
    /** {@code IORING_SQ_TASKRUN}: completions wait for task work that an enter with GETEVENTS runs. */
    private static final int SQ_TASKRUN = 1 << 2;
    private static final VarHandle INT = JAVA_INT.varHandle();

    private final MemorySegment ring;
    private final MemorySegment sqes;
    private final long head;
    private final long tail;
    private final long flags;
    private final int mask;
    private final int entries;
    private final int sqeBytes;
    /** The next SQE to fill; {@code *tail} lags it until {@link #publish()}. */
    private int sqeTail;

    SubmissionQueue(RingMemory memory, RingParams params, SqeSize sqeSize) {
        this.sqeBytes = sqeSize.bytes();
        RingParams.SqOffsets off = params.sq();
        this.ring = memory.sqRing();
        this.sqes = memory.sqes();
        this.head = off.head();
        this.tail = off.tail();
        this.flags = off.flags();
        this.mask = ring.get(JAVA_INT, off.ringMask());
        this.entries = ring.get(JAVA_INT, off.ringEntries());
        this.sqeTail = ring.get(JAVA_INT, off.tail());
        // The index array maps ring slot -> SQE; slot i always names SQE i, so it is written once (as liburing does).
        for (int i = 0; i < entries; i++) {
            ring.set(JAVA_INT, off.array() + (long) i * Integer.BYTES, i);
        }
    }

    int entries() {
        return entries;
    }

    MemorySegment sqes() {
        return sqes;
    }

    /** The byte offset in {@link #sqes()} of a slot to fill, or -1 when all are prepared or still in the kernel. */
    long next() {
        int kernelHead = (int) INT.getAcquire(ring, head);
        if (sqeTail - kernelHead >= entries) {
            return -1;
        }
        long at = (long) (sqeTail & mask) * sqeBytes;
        sqeTail++;
        return at;
    }

    /** The byte offset of the SQE {@link #next()} handed out last. */
    long lastPrepared() {
        return (long) ((sqeTail - 1) & mask) * sqeBytes;
    }

    /** Makes every filled SQE visible to the kernel. */
    void publish() {
        INT.setRelease(ring, tail, sqeTail);
    }

    /** SQEs filled that the kernel has not consumed yet (published or not). */
    int pending() {
        return sqeTail - (int) INT.getAcquire(ring, head);
    }

    /** Whether completions wait for task work (a ring set up with COOP_TASKRUN and TASKRUN_FLAG). */
    boolean taskRunPending() {
        return ((int) INT.getAcquire(ring, flags) & SQ_TASKRUN) != 0;
    }

    /** Whether completions overflowed the CQ and need an {@code io_uring_enter} with GETEVENTS to be flushed. */
    boolean completionsOverflowed() {
        return ((int) INT.getAcquire(ring, flags) & SQ_CQ_OVERFLOW) != 0;
    }
}
