package io.nvmf4j.target.backend;

import java.lang.foreign.MemorySegment;

/**
 * A backend whose I/O can leave the poll-group thread: {@link BackendIo} puts its reads, writes, flushes and
 * fallocates on the poll group's io_uring when it has a descriptor, and everything else on the namespace's own
 * {@link BackendWorkers} (the operations the ring has no opcode for, such as a block device's BLKZEROOUT, and
 * every operation in {@link BackendIoMode#THREADS} mode). The poll-group thread itself never waits for storage.
 */
public interface AsyncBackend extends NamespaceBackend {

    /** The descriptor ring operations run on, or -1 when only {@link #runBlocking} can serve this backend. */
    int descriptor();

    /**
     * True once the backend is closed: its descriptor is no longer its own (a ring that registered it as a fixed
     * file lets go of it). Backends without a descriptor of their own need not say.
     */
    default boolean isClosed() {
        return false;
    }

    /** True when {@link #descriptor()} was opened with O_DIRECT: buffers must then be aligned (else a bounce). */
    boolean directIo();

    /**
     * The fallocate(2) mode that does {@code op} on the ring (WRITE_ZEROES, DEALLOCATE), or -1 when the ring has no
     * opcode for it on this backend and a worker must run it.
     */
    int fallocateMode(BackendOp op);

    /**
     * Runs {@code op} to its end on the calling worker thread (the synchronous code every mode shares): returns
     * the bytes moved, or a negative errno. Never called on a poll-group thread.
     */
    int runBlocking(BackendOp op, long offset, long length, MemorySegment buffer);

    /** This namespace's worker pool and its bound on operations in flight. */
    BackendWorkers workers();
}
