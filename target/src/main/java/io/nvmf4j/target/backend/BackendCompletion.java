package io.nvmf4j.target.backend;

/**
 * Where an asynchronous backend operation reports its end. {@link BackendIo} calls it on the thread that owns the
 * {@code BackendIo} (the poll group that submitted the operation), never on a worker, so the implementation may
 * touch its request without locks (SPDK's {@code spdk_bdev_io_completion_cb}, run on the submitting thread).
 */
public interface BackendCompletion {

    /**
     * The operation ended: {@code result} is the number of bytes moved (0 for Flush, Write Zeroes, Deallocate), or
     * a negative errno ({@code -EIO}, {@code -ENOSPC}, {@code -ETIMEDOUT} when it did not end within the backend
     * timeout), as the kernel's {@code cqe->res}.
     */
    void backendCompleted(int result);

    /**
     * The operation did not end within the timeout and {@link #backendCompleted} was called with
     * {@code -ETIMEDOUT}; the kernel (or a worker) may still use the buffer it was given. Returns what to run once
     * it really ends (give the buffer back), or null when there is nothing to release. Called just before that
     * {@code backendCompleted}.
     */
    default Runnable backendAbandoned() {
        return null;
    }
}
