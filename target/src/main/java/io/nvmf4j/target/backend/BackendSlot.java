package io.nvmf4j.target.backend;

import java.lang.foreign.MemorySegment;

/**
 * One asynchronous backend operation of a {@link BackendIo} (SPDK's {@code struct spdk_bdev_io}): what to do, on
 * which backend and buffer, who to tell, and where it is. Reused: a {@code BackendIo} keeps a free list of these, so
 * the data path allocates none once warm. Owned by the engine's thread except while a worker runs it (the worker
 * writes {@link #result} and hands it back through {@link BackendIo#workerDone}, a release/acquire pair).
 */
final class BackendSlot {

    enum State { FREE, WAITING, RING, WORKER }

    final BackendIo io;
    final int index;
    /** Bumped on every reuse, so a completion of an earlier use is recognised (high half of the user data). */
    int generation;
    State state = State.FREE;

    AsyncBackend backend;
    BackendOp op;
    long offset;
    long length;
    /**
     * Bytes of a write already written by its earlier pieces: while its namespace is being read a large write goes
     * to the disk {@link ReadLatencyGuard#PIECE_BYTES} at a time ({@link BackendIo}).
     */
    long written;
    /** Bytes the current submission moves, from {@link #offset} + {@link #written}: {@link #length} unless split. */
    long piece;
    /** Write bytes this slot holds of its namespace's {@link ReadLatencyGuard} budget. */
    long guardBytes;
    /** The caller's buffer (data operations), or null. */
    MemorySegment buffer;
    /** Engine-owned aligned memory used instead of {@link #buffer} when O_DIRECT cannot take the caller's. */
    MemorySegment bounce;
    /** {@link #bounce} cut to the current length (kept while the length repeats: no slice per I/O). */
    MemorySegment bounceView;
    boolean bounced;
    BackendCompletion done;
    long submitNanos;
    /** Timed out: the caller has its answer; on the real end only {@link #lateEnd} runs. */
    boolean abandoned;
    Runnable lateEnd;
    /** Written by a worker before it hands the slot back. */
    int result;

    /** Free list or waiting list. */
    BackendSlot next;
    /** The workers' done stack. */
    BackendSlot nextDone;

    BackendSlot(BackendIo io, int index) {
        this.io = io;
        this.index = index;
    }

    /** Where the current submission starts in the backend. */
    long pieceOffset() {
        return offset + written;
    }

    /** The current submission's bytes: the caller's buffer, or the piece of it a split write is at. */
    MemorySegment pieceBuffer() {
        return buffer == null || (written == 0 && piece == length) ? buffer : buffer.asSlice(written, piece);
    }

    /** True while a split write has pieces left after the current one. */
    boolean morePieces() {
        return written + piece < length;
    }

    long userData() {
        return ((long) generation << 32) | index;
    }

    void clear() {
        state = State.FREE;
        backend = null;
        op = null;
        buffer = null;
        written = 0;
        piece = 0;
        guardBytes = 0;
        bounced = false;
        done = null;
        abandoned = false;
        lateEnd = null;
        next = null;
        nextDone = null;
        generation++;
    }
}
