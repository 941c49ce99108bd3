package io.nvmf4j.uring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The three shared mappings of a ring fd, as {@code io_uring_setup(2)} describes them: the SQ ring (head, tail,
 * flags and the index array), the CQ ring (head, tail and the CQEs) and the SQE array. With
 * {@code IORING_FEAT_SINGLE_MMAP} the two rings are one mapping at {@code IORING_OFF_SQ_RING}, sized for the larger
 * of them (what liburing's {@code io_uring_mmap} does). Each segment is bound to the ring's arena and unmapped when
 * it closes, so a closed ring fails with {@link IllegalStateException} instead of touching unmapped memory.
 */
record RingMemory(MemorySegment sqRing, MemorySegment cqRing, MemorySegment sqes) {

    /** The {@code IORING_OFF_*} mmap offsets that select a region (include/uapi/linux/io_uring.h). */
    static final long OFF_SQ_RING = 0L;
    static final long OFF_CQ_RING = 0x8000000L;
    static final long OFF_SQES = 0x10000000L;

    /** Maps the regions; on failure the ones already mapped are unmapped when the caller closes {@code arena}. */
    static RingMemory map(Arena arena, MemorySegment callState, int ringFd, RingParams params, SqeSize sqeSize)
            throws IoUringException {
        long sqSize = params.sqRingSize();
        long cqSize = params.cqRingSize();
        if (params.singleMmap()) {
            long size = Math.max(sqSize, cqSize);
            MemorySegment rings = mapped(arena, callState, ringFd, OFF_SQ_RING, size);
            return new RingMemory(rings, rings, mapped(arena, callState, ringFd, OFF_SQES,
                    (long) params.sqEntries() * sqeSize.bytes()));
        }
        MemorySegment sq = mapped(arena, callState, ringFd, OFF_SQ_RING, sqSize);
        MemorySegment cq = mapped(arena, callState, ringFd, OFF_CQ_RING, cqSize);
        return new RingMemory(sq, cq, mapped(arena, callState, ringFd, OFF_SQES, (long) params.sqEntries() * sqeSize.bytes()));
    }

    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    private static MemorySegment mapped(Arena arena, MemorySegment callState, int ringFd, long offset, long size)
            throws IoUringException {
        MemorySegment at = Syscalls.mmap(callState, size, ringFd, offset);
        return at.reinterpret(size, arena, unmapped -> Syscalls.munmap(unmapped, size));
    }
}
