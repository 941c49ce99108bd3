package io.nvmf4j.cli.mount;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Native buffers for data between /dev/fuse and the initiator, reused: a FUSE request is at most 128 KiB
 * (the kernel's default max_pages of 32), so up to {@code maxSlots} slots of that size cover the whole queue
 * depth without an allocation per I/O. Anything larger, or beyond the slots, gets its own arena that
 * {@link Scratch#close()} frees at once: never memory that only a GC would give back (native memory has no
 * heap pressure to trigger one).
 */
final class ScratchPool implements AutoCloseable {

    static final long SLOT_BYTES = 128 * 1024;
    private static final long ALIGNMENT = 4096;

    private final Arena arena = Arena.ofShared();
    private final ConcurrentLinkedQueue<MemorySegment> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger allocated = new AtomicInteger();
    private final int maxSlots;
    private volatile boolean closed;

    ScratchPool(int maxSlots) {
        this.maxSlots = maxSlots;
    }

    /** A buffer of {@code bytes} (contents undefined); close it when the I/O it carried completed. */
    @SuppressWarnings("MustBeClosedChecker") // the arena's close() is the returned Scratch's release action
    Scratch take(long bytes) {
        if (bytes <= SLOT_BYTES && !closed) {
            MemorySegment slot = free.poll();
            if (slot == null && allocated.incrementAndGet() <= maxSlots) {
                synchronized (this) {
                    if (!closed) {
                        slot = arena.allocate(SLOT_BYTES, ALIGNMENT);
                    }
                }
            }
            if (slot != null) {
                MemorySegment s = slot;
                return new Scratch(slot.asSlice(0, bytes), () -> free.offer(s));
            }
        }
        Arena own = Arena.ofShared();
        return new Scratch(own.allocate(Math.max(1, bytes), ALIGNMENT), own::close);
    }

    /** Frees the slots; only after every I/O that used them has completed. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            arena.close();
        }
    }

    /** One taken buffer. */
    static final class Scratch implements AutoCloseable {

        private final MemorySegment segment;
        private final Runnable release;
        private boolean released;

        Scratch(MemorySegment segment, Runnable release) {
            this.segment = segment;
            this.release = release;
        }

        MemorySegment segment() {
            return segment;
        }

        @Override
        public synchronized void close() {
            if (!released) {
                released = true;
                release.run();
            }
        }
    }
}
