package io.nvmf4j.initiator;

/**
 * One I/O queue's completion polling, taken by the thread that submits on it ({@link NvmeController#queuePolling}):
 * its completions are then handled, and their callbacks run, on that thread, with no hand-off from the queue's own
 * completion thread (which parks meanwhile), as SPDK's threads poll the qpairs they own. For a thread that already
 * loops over other work (a ublk queue, an event loop): {@link #claim} when it starts waiting for answers,
 * {@link #poll} in its loop, {@link #release} before it sleeps or ends, so that the completion thread polls again;
 * or, before it sleeps while its commands are out, {@link #wakeOnCompletion} to keep the queue and be woken by the
 * completion itself (SPDK's reactor model: the thread that owns a qpair is the only one that polls it).
 */
public interface QueuePolling {

    /**
     * Asks that the calling thread poll the queue: true once it does. The queue's completion thread grants it at
     * its next poll (at most 20 ms later when it was waiting); ask again until then, and after a reconnect.
     */
    boolean claim();

    /**
     * Handles the completions the queue holds now, on the calling thread; their number, or -1 when the calling
     * thread does not hold the queue (not granted yet, given back, or the connection changed: {@link #claim}).
     */
    int poll();

    /** Gives the polling back to the queue's completion thread; a no-op for a thread that does not hold it. */
    void release();

    /**
     * For the thread that holds the queue, about to sleep on something else (its io_uring) while its commands are
     * out: keeps the queue rather than {@link #release} it, and has {@code wake} run once, on the thread that takes
     * the queue's next completion in (the transport's progress thread, which reads the connection while this
     * thread sleeps), as {@code ibv_req_notify_cq} arms a completion channel. Then the completion thread stays
     * parked, and no completion is handed from thread to thread: the woken thread {@link #poll}s them.
     *
     * @return 0 when nothing was armed (a completion is there already, the calling thread does not hold the queue,
     *         or the transport cannot call back: ibverbs' CQs, NVMe/TCP): poll, or release before sleeping; else
     *         the longest the thread may sleep before it polls again (the queue's timeouts are checked in
     *         {@link #poll}: 20 ms)
     */
    default long wakeOnCompletion(Runnable wake) {
        return 0;
    }

    /**
     * As {@link #wakeOnCompletion}, for a thread that can also wait on a file descriptor in its own poll set (an
     * io_uring {@code IORING_OP_POLL_ADD} beside its other work): where the transport allows it (softiwarp, with
     * the connection's descriptor to be had), no transport thread reads the connection while this thread sleeps;
     * the thread waits for {@link #waitDescriptor()} to be readable as well as for {@code wake}, and polls when
     * either comes: one wake-up per answer, its own, where a transport thread that reads the answer and then runs
     * {@code wake} costs two. Elsewhere the same as {@link #wakeOnCompletion}, and {@link #waitDescriptor()} is -1.
     */
    default long wakeOnCompletionWatching(Runnable wake) {
        return wakeOnCompletion(wake);
    }

    /**
     * After {@link #wakeOnCompletionWatching} armed: the descriptor to wait on for readability (POLLIN) until the
     * thread polls again, or -1 when only {@code wake} will come.
     */
    default int waitDescriptor() {
        return -1;
    }

    /**
     * Disarms {@link #wakeOnCompletion}, for a thread that woke for another reason: once it returns, {@code wake}
     * neither runs nor will run. A no-op when nothing is armed; {@link #release} does it too.
     */
    default void cancelWake() {
    }

    /**
     * Holds the commands the calling thread submits on this queue from now on until it calls {@link #flushSends},
     * so that a burst (every request a ublk queue's round started) leaves in one write rather than one system call
     * per command, as SPDK's initiator rings a queue pair's doorbell once per batch. Where a post does not write
     * to a socket (an RDMA NIC's doorbell through ibverbs), and on NVMe/TCP queues, it changes nothing. Call
     * {@link #flushSends} before waiting for answers.
     */
    default void holdSends() {
    }

    /** Sends what the calling thread submitted since {@link #holdSends} and ends its hold. */
    default void flushSends() {
    }
}
