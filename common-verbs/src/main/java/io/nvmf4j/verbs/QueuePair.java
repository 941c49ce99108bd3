package io.nvmf4j.verbs;

/**
 * A reliable connected queue pair ({@code ibv_qp}, type RC). Created by {@link ConnectionManager#connect} or
 * {@link ConnectRequest#accept}; usable for posting once connected (receives may be posted as soon as it exists,
 * and should be, before the peer sends).
 */
public interface QueuePair extends AutoCloseable {
    /** The queue pair number, unique per device; completions carry it. */
    int number();

    /** The sizes actually granted (IRD/ORD after the MPA v2 / CM negotiation once connected). */
    QueuePairAttributes attributes();

    /** The current state. */
    QueuePairState state();

    /**
     * Posts a send work request and every request chained after it, in order ({@code ibv_post_send}). The
     * requests are copied; they may be reused as soon as this returns.
     *
     * @throws VerbsException QUEUE_FULL when the send queue has no room for the whole chain (nothing posted),
     *                        INVALID_ARGUMENT for too many SGEs or a bad opcode, INVALID_STATE before connection
     *                        (in ERROR state requests are accepted and complete with WR_FLUSH_ERR, as in verbs)
     */
    void postSend(SendWorkRequest request) throws VerbsException;

    /**
     * Holds the sends the calling thread posts from now on until it calls {@link #flushSends}, so that a burst of
     * posts leaves in one write instead of one per post (the idea of {@code MSG_MORE}; a chain posted at once
     * gets the same). For a provider whose post only rings a doorbell this does nothing. A post by another thread
     * still goes out at once, and takes what is held with it.
     */
    default void holdSends() {
    }

    /** Sends what the calling thread posted since {@link #holdSends} and ends its hold. */
    default void flushSends() {
    }

    /**
     * Posts a receive work request and every request chained after it ({@code ibv_post_recv}).
     *
     * @throws VerbsException QUEUE_FULL when the receive queue has no room for the whole chain
     */
    void postReceive(ReceiveWorkRequest request) throws VerbsException;

    /** Destroys the queue pair (disconnecting its connection first); idempotent. */
    @Override
    void close();
}
