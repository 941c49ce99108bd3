package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateMessage;

import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * The end of a softiwarp queue pair's connection once it is in ERROR (siw_qp_llp_close() and siw_qp_cm_drop() of
 * Linux siw_qp.c/siw_cm.c): the pending Terminate goes out best effort - if the socket has no room, the progress
 * engine lingers on OP_WRITE until {@code terminateLinger} - then the socket closes, every outstanding work request
 * is flushed (siw_sq_flush(), siw_rq_flush()) and the connection's listener hears about it. Runs inside the queue
 * pair's transmit drain ({@link SoftiwarpQueuePair#kickTx()}), one thread at a time.
 */
final class QpClose {
    private final SoftiwarpQueuePair qp;
    /**
     * Set while a Terminate waits for room in the socket of an ended queue pair: the engine keeps the socket open
     * and retries on OP_WRITE until {@link #lingerDeadline}, then closes it. No thread waits for the peer.
     */
    private volatile boolean lingering;
    private long lingerDeadline;

    QpClose(SoftiwarpQueuePair qp) {
        this.qp = qp;
    }

    /** The end itself failed: the queue pair is done all the same, its socket closed, nothing left lingering. */
    void abandon(RuntimeException e) {
        qp.device.rejectedPeers().add(RejectedPeers.Reason.ENGINE_FAILURE);
        SoftiwarpQueuePair.FAILURE_LOG.info("softiwarp QP {0}: ending the connection failed: {1}", qp.number(),
                e.toString());
        lingering = false;
        qp.finished = true;
        SocketChannel ch = qp.channel;
        if (ch != null) {
            ChannelIo.closeQuietly(ch);
        }
    }

    boolean lingering() {
        return lingering;
    }

    /** Runs inside the transmit drain once the state is ERROR. */
    void finish() {
        if (qp.finished) {
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
                lingering = true;
                qp.engine.wakeup(); // to watch the socket for room
            } else {
                if (outcome != TerminateTx.TERMINATE_DONE) {
                    qp.device.rejectedPeers().add(RejectedPeers.Reason.TERMINATE_UNDELIVERED);
                }
                ChannelIo.closeQuietly(ch);
            }
        }
        flushAll();
        qp.finished = true;
        Consumer<DisconnectEvent> listener = qp.endListener;
        if (listener != null) {
            listener.accept(qp.endEvent);
        }
    }

    /** One more try at the Terminate of an ended queue pair; closes the socket when done or out of time. */
    private void continueLinger() {
        SocketChannel ch = qp.channel;
        int outcome = qp.terminateTx.continueTerminate(ch);
        if (outcome == TerminateTx.TERMINATE_MORE && System.nanoTime() - lingerDeadline < 0) {
            return;
        }
        if (outcome != TerminateTx.TERMINATE_DONE) {
            qp.device.rejectedPeers().add(RejectedPeers.Reason.TERMINATE_UNDELIVERED);
        }
        lingering = false;
        ChannelIo.closeQuietly(ch);
    }

    /** Closes the socket of an ended queue pair now, Terminate delivered or not (the engine stops). */
    void abortLinger() {
        if (lingering) {
            lingering = false;
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
        synchronized (qp.postLock) {
            for (long i = qp.sqTxHead; i < qp.sqTail; i++) {
                qp.completeSend(qp.sq[(int) (i % qp.sq.length)], WcStatus.WR_FLUSH_ERR, 0, 0);
            }
            qp.sqTxHead = qp.sqTail;
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
        qp.irqHead = qp.irqTail;
    }
}
