package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePairState;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The transmit side of a queue pair (siw's {@code struct siw_iwarp_tx}, {@code qp->tx_ctx}): who transmits, and
 * the queue heads only the transmitter moves.
 *
 * <p>Threading: the transmit drain runs on whichever thread kicks it - a poster (siw_sq_start() from
 * siw_post_send()), an inline-polling consumer or the progress engine - one at a time: the thread that takes
 * {@link #wip} from 0 runs it, later kicks only count and make that thread run it again ({@link #kick}). That
 * thread alone writes the fields below ({@link Transmitter}, and {@link QpClose} once the queue pair is in ERROR,
 * which runs inside the same drain). Two drain owners one after the other are ordered by {@link #wip} (the first
 * one's decrement, the second one's increment). Other threads only read, and the fields are volatile for them:
 * posters reclaim send queue slots below {@link #sqHead}, the receiver checks IRD against {@link #irqHead}.
 */
final class TxContext {
    private final SoftiwarpQueuePair qp;
    /** Kicks not yet served: non-zero while a thread runs the drain. */
    private final AtomicInteger wip = new AtomicInteger();
    /** The send queue's transmit head: the next WQE to go on the wire. Volatile: posters reclaim slots below it. */
    volatile long sqHead;
    /** The IRQ's head: the next Read Response to send. Volatile: the receiver reads it to enforce IRD. */
    volatile long irqHead;

    TxContext(SoftiwarpQueuePair qp) {
        this.qp = qp;
    }

    /** Runs the transmitter unless another thread is already running it (that thread then runs it again). */
    void kick() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            if (qp.state() == QueuePairState.ERROR) {
                try {
                    qp.closing().finish();
                } catch (RuntimeException e) {
                    // whatever failed, this queue pair is done: no thread may be left owning wip or the socket
                    qp.closing().abandon(e);
                }
            } else {
                try {
                    qp.transmitter.pump();
                } catch (RuntimeException e) {
                    // e.g. the arena of a registered region was closed under a send
                    qp.enterError(DisconnectEvent.Cause.TRANSPORT_ERROR, "send failed: " + e, null);
                }
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }
}
