package io.nvmf4j.uring;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What {@code io_uring_setup(2)} wrote back into {@code struct io_uring_params} (include/uapi/linux/io_uring.h):
 * the queue sizes the kernel chose, its {@code IORING_FEAT_*} features and where in the mapped rings each field
 * lives ({@code struct io_sqring_offsets}, {@code struct io_cqring_offsets}).
 */
record RingParams(int sqEntries, int cqEntries, int features, SqOffsets sq, CqOffsets cq) {

    /** {@code sizeof(struct io_uring_params)}: ten u32, then the two 40-byte offset structs. */
    static final long SIZE = 120;
    private static final long SQ_ENTRIES = 0;
    private static final long CQ_ENTRIES = 4;
    private static final long FLAGS = 8;
    private static final long FEATURES = 20;
    private static final long SQ_OFF = 40;
    private static final long CQ_OFF = 80;

    /** {@code IORING_SETUP_CQSIZE}: {@code cq_entries} is the CQ size (else the kernel takes twice the SQ's). */
    static final int SETUP_CQSIZE = 1 << 3;
    /**
     * {@code IORING_SETUP_COOP_TASKRUN} (5.19): completions that need the submitting task's context are not pushed
     * by interrupting it (an IPI and a forced kernel entry of a thread that is busy polling); with
     * {@code IORING_SETUP_TASKRUN_FLAG} the kernel sets {@code IORING_SQ_TASKRUN} in the SQ ring's flags instead, and
     * the next {@code io_uring_enter} with GETEVENTS runs that work (liburing's {@code cq_ring_needs_flush()}).
     */
    static final int SETUP_COOP_TASKRUN = 1 << 8;
    static final int SETUP_TASKRUN_FLAG = 1 << 9;
    /** {@code IORING_FEAT_SINGLE_MMAP}: the SQ and CQ rings share one mapping (kernel 5.4+). */
    static final int FEAT_SINGLE_MMAP = 1;

    /** {@code struct io_sqring_offsets}: byte offsets into the SQ ring mapping. */
    record SqOffsets(int head, int tail, int ringMask, int ringEntries, int flags, int dropped, int array) {
    }

    /** {@code struct io_cqring_offsets}: byte offsets into the CQ ring mapping. */
    record CqOffsets(int head, int tail, int ringMask, int ringEntries, int overflow, int cqes, int flags) {
    }

    /** A zeroed {@code struct io_uring_params} asking for a CQ of {@code cqEntries} entries. */
    static MemorySegment request(Arena arena, int cqEntries) {
        return request(arena, cqEntries, SETUP_CQSIZE);
    }

    static MemorySegment request(Arena arena, int cqEntries, int setupFlags) {
        MemorySegment p = arena.allocate(SIZE, 8);
        p.set(JAVA_INT, FLAGS, setupFlags);
        p.set(JAVA_INT, CQ_ENTRIES, cqEntries);
        return p;
    }

    /** Reads the struct back after a successful setup. */
    static RingParams read(MemorySegment p) {
        long s = SQ_OFF;
        long c = CQ_OFF;
        return new RingParams(p.get(JAVA_INT, SQ_ENTRIES), p.get(JAVA_INT, CQ_ENTRIES), p.get(JAVA_INT, FEATURES),
                new SqOffsets(p.get(JAVA_INT, s), p.get(JAVA_INT, s + 4), p.get(JAVA_INT, s + 8),
                        p.get(JAVA_INT, s + 12), p.get(JAVA_INT, s + 16), p.get(JAVA_INT, s + 20),
                        p.get(JAVA_INT, s + 24)),
                new CqOffsets(p.get(JAVA_INT, c), p.get(JAVA_INT, c + 4), p.get(JAVA_INT, c + 8),
                        p.get(JAVA_INT, c + 12), p.get(JAVA_INT, c + 16), p.get(JAVA_INT, c + 20),
                        p.get(JAVA_INT, c + 24)));
    }

    /** Bytes of the SQ ring mapping: up to the end of its index array (as liburing's setup computes it). */
    long sqRingSize() {
        return sq.array() + (long) sqEntries * Integer.BYTES;
    }

    /** Bytes of the CQ ring mapping: up to the end of its CQE array. */
    long cqRingSize() {
        return cq.cqes() + (long) cqEntries * Cqe.SIZE;
    }

    boolean singleMmap() {
        return (features & FEAT_SINGLE_MMAP) != 0;
    }
}
