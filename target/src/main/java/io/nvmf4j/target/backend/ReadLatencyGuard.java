package io.nvmf4j.target.backend;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps one namespace's reads from queueing behind its writes in the device: while reads are active (one in flight,
 * or one ended less than {@link #READ_WINDOW_NANOS} ago) at most {@link #WRITE_BUDGET_BYTES} of writes are in flight
 * (always at least one write, so writes never starve); with no reader, writes go as deep as the namespace's bound.
 * A disk serves what it holds in an order of its own, and a 4 KiB read that arrives behind a few MiB of writes
 * waits for most of them (measured by bench/disk.sh: a QD1 reader's p99 went from 0.16 ms alone to 5 ms beside
 * 1 MiB writes at QD4). Linux does the same below nvmet, in the block layer: writeback throttling
 * ({@code blk-wbt.c}) and the kyber scheduler shrink the writes' queue depth while reads miss their latency target;
 * a file or a device served here gets no such help from the I/O it submits with O_DIRECT through io_uring, so the
 * target applies it itself. Shared by every poll group that submits to the namespace, hence atomics.
 */
final class ReadLatencyGuard {

    /** How long after its last read a namespace still counts as being read (a QD1 reader's gap is tens of us). */
    static final long READ_WINDOW_NANOS = 2_000_000;
    /** Write bytes in flight while reads are active: one 128 KiB write, or 32 writes of 4 KiB. */
    static final long WRITE_BUDGET_BYTES = 128 * 1024;
    /**
     * While reads are active a larger write goes to the disk in pieces of this size, one after the other, so that a
     * read waits behind at most one piece: fio on this project's test disk, a QD1 4 KiB reader beside one writer
     * at QD1, had a p99 of 1.2 ms beside 1 MiB writes and 0.26 ms beside 128 KiB writes (0.12 ms alone).
     */
    static final long PIECE_BYTES = WRITE_BUDGET_BYTES;

    private final AtomicInteger readsInFlight = new AtomicInteger();
    private volatile long lastReadEnd = Long.MIN_VALUE / 2;
    private final AtomicLong writeBytesInFlight = new AtomicLong();

    /** True while reads are active: a write then waits for room under the budget. */
    boolean readsActive(long nowNanos) {
        return readsInFlight.get() > 0 || nowNanos - lastReadEnd < READ_WINDOW_NANOS;
    }

    void readStarted() {
        readsInFlight.incrementAndGet();
    }

    void readEnded(long nowNanos) {
        lastReadEnd = nowNanos;
        readsInFlight.decrementAndGet();
    }

    /**
     * Takes room for a write of {@code bytes}; false when reads are active and the writes in flight already fill
     * the budget (the caller keeps the write waiting and asks again on a later round).
     */
    boolean tryStartWrite(long bytes, long nowNanos) {
        while (true) {
            long inFlight = writeBytesInFlight.get();
            if (inFlight > 0 && inFlight + bytes > WRITE_BUDGET_BYTES && readsActive(nowNanos)) {
                return false;
            }
            if (writeBytesInFlight.compareAndSet(inFlight, inFlight + bytes)) {
                return true;
            }
        }
    }

    void writeEnded(long bytes) {
        writeBytesInFlight.addAndGet(-bytes);
    }

    /** Write bytes in flight now (for tests and statistics). */
    long writeBytesInFlight() {
        return writeBytesInFlight.get();
    }
}
