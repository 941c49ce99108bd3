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

    /** What {@link #requestNotify} did. */
    enum Notify {
        /** The handler runs at the next completion (or has run already). */
        ARMED,
        /** A completion is there now: nothing was armed; poll instead of sleeping. */
        READY,
        /** This queue cannot call back: poll it, or let a thread that blocks in {@link #await} have it. */
        UNSUPPORTED,
        /**
         * {@link #requestNotifyWatching} only: the handler is armed and the consumer keeps the queue's progress; it
         * must also wait for {@link #waitDescriptor()} to be readable and poll when it is.
         */
        WATCHING
    }

    /**
     * For a consumer about to sleep on something else (its io_uring, an event loop) without giving the queue to
     * another thread: runs {@code handler} once, on the thread that adds the queue's next completion, as
     * {@code ibv_req_notify_cq} arms a completion channel whose event the consumer's loop watches. The consumer
     * stops polling: progress it drove from its polls goes back to the provider until it polls again. The handler
     * must be short and must not block (it runs on a provider thread). Arm again after each wake-up.
     */
    default Notify requestNotify(Runnable handler) {
        return Notify.UNSUPPORTED;
    }

    /**
     * As {@link #requestNotify}, for a consumer that can wait on a file descriptor in its own poll set (an io_uring
     * {@code IORING_OP_POLL_ADD} beside its other work): where the provider allows it ({@link Notify#WATCHING}), the
     * consumer keeps driving the queue's progress, and sleeps until {@link #waitDescriptor()} is readable (poll(2)'s
     * POLLIN) or the handler runs (a completion that another thread adds: a connection's end), then polls. One
     * wake-up per completion, the consumer's, where a provider thread that reads the connection and then runs the
     * handler costs two. Where not, it does what {@link #requestNotify} does. Disarm with {@link #cancelNotify}.
     */
    default Notify requestNotifyWatching(Runnable handler) {
        return requestNotify(handler);
    }

    /**
     * The descriptor a consumer that {@link #requestNotifyWatching} answered {@link Notify#WATCHING} waits on, valid
     * until it polls again; -1 when there is none.
     */
    default int waitDescriptor() {
        return -1;
    }

    /**
     * Disarms what {@link #requestNotify} armed, for a consumer that woke for another reason or stops: once it
     * returns the handler neither runs nor will run (a run in progress is waited for). Idempotent.
     */
    default void cancelNotify() {
    }

    /** True if more completions were produced than the queue holds (the queue pairs then went to error). */
    boolean overflowed();

    /** Destroys the queue ({@code ibv_destroy_cq}); idempotent. */
    @Override
    void close();
}
