package io.nvmf4j.cli.mount.ublk;

import java.lang.foreign.MemorySegment;

/**
 * What serves a ublk device's requests. {@link #start} is called on the queue's own thread with the request's
 * operation ({@code IoDescriptor.OP_*}), flags ({@code IoDescriptor.F_*}), byte offset and length, and the tag's
 * whole buffer ({@code max_io_buf_bytes}; a write's data is at its start, a read's goes there). It must end the request exactly once through
 * {@code done}, with the bytes moved for a read or write, 0 for the others, or {@code -errno} (the block layer
 * turns it into an I/O error for the request): at once on the queue's thread, or later from any thread.
 */
public interface BlockRequestHandler {

    /**
     * Called once per queue before its first request, with every buffer the queue will hand out and the queue's
     * {@code done}, the same for each of its requests.
     */
    default void attach(int queueId, MemorySegment buffers, int bufferBytes, RequestCompletion done)
            throws UblkException {
    }

    void start(int queueId, int tag, int op, int flags, long offset, long length, MemorySegment buffer,
            RequestCompletion done);

    /**
     * How long a queue's thread busy-polls for this handler's later answers (and new requests) before it sleeps
     * in {@code io_uring_enter}, while the handler holds any of its requests: a wake-up through the eventfd costs
     * more than the round trip it waits for (SPDK polls its ublk rings and its bdevs on one reactor). 0 for a
     * handler that answers before it returns.
     */
    default long spinNanos() {
        return 0;
    }

    /**
     * Called on the queue's thread in its loop: handles the answers the handler's own backend has for this queue
     * (the initiator's completions, polled here rather than on a thread of their own), ending their requests on
     * this thread; how many, 0 when none or when the handler has nothing to poll.
     */
    default int poll(int queueId) {
        return 0;
    }

    /**
     * Called on the queue's thread after it has started every request that one look at its ring brought: what
     * {@link #start} held back to send together goes now.
     */
    default void started(int queueId) {
    }

    /**
     * Called on the queue's thread before it sleeps: gives back what {@link #poll} took over, or keeps it and has
     * its backend wake the thread ({@link RequestCompletion#wake}) when answers come.
     *
     * @param requestsHeld whether the handler holds requests of this queue now
     * @return 0, or the longest the thread may sleep before it calls {@link #poll} again (it then wakes by then)
     */
    default long beforeSleep(int queueId, boolean requestsHeld) {
        return 0;
    }

    /**
     * After {@link #beforeSleep} returned a bound: a file descriptor whose readability (POLLIN) means answers to
     * {@link #poll} as well (the connection the handler's backend left to this thread to read), which the queue
     * watches in its ring beside its commands; -1 when only {@link RequestCompletion#wake} will come.
     */
    default int waitDescriptor(int queueId) {
        return -1;
    }

    /** Called on the queue's thread as it ends: gives back whatever {@link #poll} took over. */
    default void stopped(int queueId) {
    }

    /** Ends a request; {@link UblkQueue} implements it. */
    interface RequestCompletion {
        void complete(int tag, int result);

        /**
         * Wakes the queue's thread if it sleeps, or makes its next sleep end at once (any thread; one write to an
         * eventfd): for a backend whose answers are there to {@link #poll}.
         */
        default void wake() {
        }
    }

    /** A handler that answers every request before it returns (RAM, tests). */
    @FunctionalInterface
    interface Synchronous {
        int serve(int op, int flags, long offset, long length, MemorySegment buffer);
    }

    static BlockRequestHandler synchronous(Synchronous serve) {
        return (queueId, tag, op, flags, offset, length, buffer, done) ->
                done.complete(tag, serve.serve(op, flags, offset, length, buffer));
    }
}
