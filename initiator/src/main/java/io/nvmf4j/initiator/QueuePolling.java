package io.nvmf4j.initiator;

/**
 * One I/O queue's completion polling, taken by the thread that submits on it ({@link NvmeController#queuePolling}):
 * its completions are then handled, and their callbacks run, on that thread, with no hand-off from the queue's own
 * completion thread (which parks meanwhile), as SPDK's threads poll the qpairs they own. For a thread that already
 * loops over other work (a ublk queue, an event loop): {@link #claim} when it starts waiting for answers,
 * {@link #poll} in its loop, {@link #release} before it sleeps or ends, so that the completion thread polls again.
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
     * Holds the commands the calling thread submits on this queue from now on until it calls {@link #flushSends},
     * so that a burst (every request a ublk queue's round started) leaves in one write rather than one system call
     * per command, as SPDK's initiator rings a queue pair's doorbell once per batch. Where sending is a doorbell
     * (an RDMA NIC through ibverbs) it changes nothing. Call {@link #flushSends} before waiting for answers.
     */
    default void holdSends() {
    }

    /** Sends what the calling thread submitted since {@link #holdSends} and ends its hold. */
    default void flushSends() {
    }
}
