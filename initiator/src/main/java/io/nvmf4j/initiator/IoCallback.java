package io.nvmf4j.initiator;

/**
 * Completion callback of the callback form of the I/O calls ({@link Namespace#submitRead} and friends), for
 * benchmarks and event loops that do not want a {@code CompletableFuture} per I/O. Runs on the queue's completion
 * thread: keep it short, never block in it. After a failure it may run on another thread, the submitting one
 * included: see {@link IoCompletionHandler} for which.
 */
@FunctionalInterface
public interface IoCallback {

    /** @param error null on success, else the first failure of the I/O's commands */
    void completed(NvmfException error);
}
