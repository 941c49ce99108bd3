package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.DisconnectEvent;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The receive side of a queue pair (siw's {@code struct siw_rx_stream}, {@code qp->rx_stream}): who reads the
 * socket, and the queue tail only the receiver moves.
 *
 * <p>Threading: the receiver runs on the progress engine or on a consumer polling one of the queue pair's
 * completion queues (inline progress), one at a time: the thread that sets {@link #busy} runs it and clears it
 * after, which also orders two owners one after the other. Only that thread writes {@link #irqTail}
 * ({@link RdmapReceive}, queueing an answer to a peer's Read Request); it is volatile for the transmitter, which
 * reads it to find Read Responses to send, and for the flush at the end. The receiver's parsing state lives in
 * {@link Receiver} and {@link RdmapReceive}, touched by the owner only.
 */
final class RxStream {
    private static final System.Logger LOG = System.getLogger(SoftiwarpQueuePair.class.getName());

    private final SoftiwarpQueuePair qp;
    /** Held by whichever thread runs the receiver: the engine or an inline-polling consumer. */
    private final AtomicBoolean busy = new AtomicBoolean();
    /** The IRQ's tail: one past the last peer Read Request queued for an answer. */
    volatile long irqTail;

    RxStream(SoftiwarpQueuePair qp) {
        this.qp = qp;
    }

    /** A consumer is reading this queue pair's socket right now (inline progress). */
    boolean busy() {
        return busy.get();
    }

    /**
     * Runs the receiver unless another thread is running it; true if it made progress. A receive that throws
     * (e.g. the arena of a registered region was closed) ends the connection.
     */
    boolean progress() {
        if (!busy.compareAndSet(false, true)) {
            return false;
        }
        try {
            return qp.receiver.poll();
        } catch (RuntimeException e) {
            // counted and logged once for this connection, without a stack trace (a peer must not be able to
            // flood the log); the trace goes to FINE for whoever debugs it
            qp.device.rejectedPeers().add(RejectedPeers.Reason.ENGINE_FAILURE);
            SoftiwarpQueuePair.FAILURE_LOG.info("softiwarp QP {0} receive failed: {1}", qp.number, e.toString());
            LOG.log(System.Logger.Level.DEBUG, "softiwarp QP " + qp.number + " receive failed", e);
            qp.enterError(DisconnectEvent.Cause.TRANSPORT_ERROR, "receive failed: " + e, null);
            return true;
        } finally {
            busy.set(false);
        }
    }

    /**
     * Reads and discards the peer's input of an ended queue pair (QpClose's linger before the close) as the owner
     * of the receive side, so never while a receiver step still runs on another thread (then it reads nothing
     * this time). Returns the bytes discarded, or -1 at the end of the stream.
     */
    long discard(SocketChannel ch, long budget) throws IOException {
        if (!busy.compareAndSet(false, true)) {
            return 0;
        }
        try {
            return qp.receiver.discard(ch, budget);
        } finally {
            busy.set(false);
        }
    }
}
