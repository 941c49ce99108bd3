package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateMessage;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * The end of a softiwarp queue pair's connection once it is in ERROR (siw_qp_llp_close() and siw_qp_cm_drop() of
 * Linux siw_qp.c/siw_cm.c): the pending Terminate goes out best effort - if the socket has no room, the progress
 * engine lingers on OP_WRITE until {@code terminateLinger} - then the stream is shut down gracefully, every
 * outstanding work request is flushed (siw_sq_flush(), siw_rq_flush()) and the connection's listener hears about
 * it. Runs inside the queue pair's transmit drain ({@link SoftiwarpQueuePair#kickTx()}), one thread at a time.
 *
 * <p>The graceful shutdown: the Terminate is the last thing sent on the stream (RFC 5040 7.1, RFC 5044 8), so the
 * write side is shut down right after it (FIN behind the Terminate) and input the peer still sends is read and
 * discarded until it closes too, for at most {@code terminateLinger} and {@link #DRAIN_BUDGET} bytes, before the
 * socket closes. Closing a TCP socket that still holds unread input makes the kernel answer with a reset instead
 * of a FIN and throw away whatever of ours is still queued (RFC 2525 2.17; Linux tcp_close()) - the Terminate with
 * it, whenever the peer's window was full. (siw's siw_qp_cm_drop() sends the Terminate and releases the socket at
 * once, with the same window; a user-space provider can afford the linger.) No thread waits: the engine does the
 * draining on OP_READ.
 */
final class QpClose {
    /** Input discarded while lingering after the Terminate, at most (a peer gets no unbounded work out of us). */
    static final long DRAIN_BUDGET = 1 << 20;
    private static final int PHASE_NONE = 0;
    /** The Terminate waits for room in the socket (OP_WRITE). */
    private static final int PHASE_TERMINATE = 1;
    /** Output shut down; the peer's remaining input is discarded until it closes (OP_READ). */
    private static final int PHASE_DRAIN = 2;

    private final SoftiwarpQueuePair qp;
    /**
     * Set while the socket of an ended queue pair stays open: for its Terminate to find room, then for the peer
     * to see it and close. The engine retries until {@link #lingerDeadline}, then closes it. No thread waits for the
     * peer.
     */
    private volatile boolean lingering;
    private volatile int phase = PHASE_NONE;
    /**
     * The end is done (flushed, listener told): written inside the transmit drain, volatile for the engine, which
     * drops the queue pair once it is set and nothing lingers.
     */
    private volatile boolean finished;
    private long lingerDeadline;
    private long drained;

    QpClose(SoftiwarpQueuePair qp) {
        this.qp = qp;
    }

    /** The end itself failed: the queue pair is done all the same, its socket closed, nothing left lingering. */
    void abandon(RuntimeException e) {
        qp.device.rejectedPeers().add(RejectedPeers.Reason.ENGINE_FAILURE);
        SoftiwarpQueuePair.FAILURE_LOG.info("softiwarp QP {0}: ending the connection failed: {1}", qp.number(),
                e.toString());
        lingering = false;
        phase = PHASE_NONE;
        finished = true;
        SocketChannel ch = qp.channel;
        if (ch != null) {
            ChannelIo.closeQuietly(ch);
        }
    }

    boolean finished() {
        return finished;
    }

    boolean lingering() {
        return lingering;
    }

    /** What the engine watches the socket of a lingering queue pair for: room for the Terminate, or input. */
    int interestOps() {
        return switch (phase) {
            case PHASE_TERMINATE -> SelectionKey.OP_WRITE;
            case PHASE_DRAIN -> SelectionKey.OP_READ;
            default -> 0;
        };
    }

    /** Runs inside the transmit drain once the state is ERROR. */
    void finish() {
        if (finished) {
            if (lingering) {
                continueLinger();
            }
            return;
        }
        SocketChannel ch = qp.channel;
        if (ch != null) {
            TerminateMessage terminate = qp.pendingTerminate;
            int outcome = TerminateTx.TERMINATE_DONE;
            if (terminate != null) {
                outcome = qp.terminateTx.start(ch, terminate);
            }
            if (outcome == TerminateTx.TERMINATE_MORE && qp.engine != null) {
                lingerDeadline = System.nanoTime() + qp.config.terminateLinger().toNanos();
                phase = PHASE_TERMINATE;
                lingering = true;
                qp.engine.wakeup(); // to watch the socket for room
            } else {
                if (outcome != TerminateTx.TERMINATE_DONE) {
                    qp.device.rejectedPeers().add(RejectedPeers.Reason.TERMINATE_UNDELIVERED);
                }
                shutdown(ch);
            }
        }
        flushAll();
        finished = true;
        Consumer<DisconnectEvent> listener = qp.endListener;
        if (listener != null) {
            listener.accept(qp.endEvent);
        }
    }

    /** One more step of an ended queue pair's linger; closes the socket when done or out of time. */
    private void continueLinger() {
        SocketChannel ch = qp.channel;
        if (phase == PHASE_TERMINATE) {
            int outcome = qp.terminateTx.continueTerminate(ch);
            if (outcome == TerminateTx.TERMINATE_MORE && System.nanoTime() - lingerDeadline < 0) {
                return;
            }
            if (outcome != TerminateTx.TERMINATE_DONE) {
                qp.device.rejectedPeers().add(RejectedPeers.Reason.TERMINATE_UNDELIVERED);
            }
            shutdown(ch);
            return;
        }
        if (drain(ch) && System.nanoTime() - lingerDeadline < 0) {
            return;
        }
        closeNow(ch);
    }

    /**
     * The stream's graceful end: FIN after everything written (the Terminate last), then the peer's remaining
     * input is discarded until it closes (engine, OP_READ) - at once if it already did or there is no engine.
     */
    private void shutdown(SocketChannel ch) {
        try {
            ch.shutdownOutput();
        } catch (IOException | RuntimeException e) {
            closeNow(ch); // the socket failed: nothing more can reach the peer
            return;
        }
        if (drain(ch) && qp.engine != null) {
            lingerDeadline = System.nanoTime() + qp.config.terminateLinger().toNanos();
            phase = PHASE_DRAIN;
            lingering = true;
            qp.engine.wakeup(); // to watch the socket for input
            return;
        }
        closeNow(ch);
    }

    /**
     * Reads and discards what the peer sent; true while it may send more (no end of stream yet, budget left).
     * Emptying the receive queue right before the close is what keeps it a FIN rather than a reset.
     */
    private boolean drain(SocketChannel ch) {
        try {
            long n = qp.rxStream.discard(ch, DRAIN_BUDGET - drained);
            if (n < 0) {
                return false; // the peer closed too: the close is clean
            }
            drained += n;
            return drained < DRAIN_BUDGET;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private void closeNow(SocketChannel ch) {
        lingering = false;
        phase = PHASE_NONE;
        ChannelIo.closeQuietly(ch);
    }

    /** Closes the socket of an ended queue pair now, Terminate delivered or not (the engine stops). */
    void abortLinger() {
        if (lingering) {
            lingering = false;
            phase = PHASE_NONE;
            SocketChannel ch = qp.channel;
            if (ch != null) {
                ChannelIo.closeQuietly(ch);
            }
        }
    }

    /** Completes everything outstanding with WR_FLUSH_ERR (siw_sq_flush, siw_rq_flush). */
    void flushAll() {
        synchronized (qp.orqLock) {
            qp.orqFlushed = true;
            for (long i = qp.orqHead; i < qp.orqTail; i++) {
                SendWqe wqe = qp.orq[(int) (i % qp.orq.length)];
                qp.completeSend(wqe, WcStatus.WR_FLUSH_ERR, 0, 0);
            }
            qp.orqHead = qp.orqTail;
        }
        TxContext tx = qp.txContext; // this runs inside the transmit drain: the transmit side is ours
        qp.transmitter.flushPending(WcStatus.WR_FLUSH_ERR);
        synchronized (qp.postLock) {
            for (long i = tx.sqHead; i < qp.sqTail; i++) {
                qp.completeSend(qp.sq[(int) (i % qp.sq.length)], WcStatus.WR_FLUSH_ERR, 0, 0);
            }
            tx.sqHead = qp.sqTail;
        }
        synchronized (qp.postRecvLock) {
            synchronized (qp.rqLock) {
                qp.rqFlushed = true;
                for (long i = qp.rqHead; i < qp.rqTail; i++) {
                    qp.recvCq.push(qp.rq[(int) (i % qp.rq.length)].wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0,
                            qp.number(), false, 0, 0);
                }
                qp.rqHead = qp.rqTail;
            }
        }
        tx.irqHead = qp.rxStream.irqTail;
    }
}
