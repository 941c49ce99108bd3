package io.nvmf4j.verbs;

import java.util.concurrent.TimeUnit;

/**
 * A completion queue ({@code ibv_cq}). May serve many queue pairs: completions carry the queue pair number.
 * Polled by one thread at a time.
 */
public interface CompletionQueue extends AutoCloseable {
    /** How many completions it holds. */
    int capacity();

    /**
     * Moves up to {@code out.length} completions into {@code out} (non-blocking, no allocation;
     * {@code ibv_poll_cq}).
     *
     * @return how many were filled, 0 if none is ready
     */
    int poll(WorkCompletion[] out);

    /**
     * Like {@link #poll(WorkCompletion[])}, but waits for at least one completion: spins a configurable budget
     * first (waking a thread costs far more than a polled round trip), then blocks.
     *
     * @return how many were filled, 0 on timeout
     * @throws InterruptedException if the waiting thread is interrupted
     */
    int await(WorkCompletion[] out, long timeout, TimeUnit unit) throws InterruptedException;

    /** True if more completions were produced than the queue holds (the queue pairs then went to error). */
    boolean overflowed();

    /** Destroys the queue ({@code ibv_destroy_cq}); idempotent. */
    @Override
    void close();
}
