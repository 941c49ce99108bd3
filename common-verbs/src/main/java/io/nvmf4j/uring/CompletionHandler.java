package io.nvmf4j.uring;

/**
 * Receives the CQEs {@link IoUring#reap} finds: one call per {@code struct io_uring_cqe}
 * (include/uapi/linux/io_uring.h). Implement it once per consumer (not as a lambda per call) to keep the completion
 * path allocation-free. It must not call {@link IoUring#reap} of the same ring; preparing and submitting from it is
 * allowed.
 */
@FunctionalInterface
public interface CompletionHandler {

    /**
     * @param userData the {@code userData} given to the {@code prepare*} call ({@code cqe->user_data})
     * @param result   {@code cqe->res}: bytes transferred, 0, or a negative errno (e.g. -9 for EBADF)
     * @param flags    {@code cqe->flags} ({@code IORING_CQE_F_*}; 0 for the operations this ring prepares)
     */
    void completed(long userData, int result, int flags);
}
