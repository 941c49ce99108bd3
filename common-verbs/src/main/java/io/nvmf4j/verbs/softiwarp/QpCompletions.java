package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.provider.WorkRequests;

/**
 * The completions of a softiwarp queue pair's work requests (siw_sqe_complete() and siw_rqe_complete() of Linux
 * siw_qp.c): a send-queue WQE ends once and its completion is retired in send queue order; a receive completes at
 * the head of the receive queue. A completion that does not fit its CQ marks the queue pair overrun.
 */
final class QpCompletions {
    private final SoftiwarpQueuePair qp;
    private final Object retireLock = new Object();
    private long sqRetireHead;

    QpCompletions(SoftiwarpQueuePair qp) {
        this.qp = qp;
    }

    /**
     * Ends a send-queue WQE once (siw_sqe_complete). Completions are then reported in send queue order
     * (ibv_poll_cq: a completion implies every earlier unsignaled request completed), so a Send posted after an
     * unsignaled Read reports only once the Read's data is in. Errors are always reported, successes if signaled.
     */
    void completeSend(SendWqe wqe, WcStatus status, int byteLength, int vendorError) {
        synchronized (wqe) {
            if (wqe.finished) {
                return;
            }
            wqe.completionStatus = status;
            wqe.completionLength = byteLength;
            wqe.completionVendorError = vendorError;
            wqe.finished = true;
        }
        retireSends();
    }

    private void retireSends() {
        synchronized (retireLock) {
            long tail = qp.sqTail;
            while (sqRetireHead < tail) {
                SendWqe w = qp.sq[(int) (sqRetireHead % qp.sq.length)];
                if (!w.finished) {
                    break;
                }
                if ((w.signaled || w.completionStatus != WcStatus.SUCCESS)
                        && !qp.sendCq.push(w.wrId, w.completionStatus, WorkRequests.completionOpcode(w.opcode),
                        w.completionLength, qp.number, false, 0, w.completionVendorError)) {
                    qp.cqOverrun();
                }
                w.done = true;
                sqRetireHead++;
            }
        }
    }

    /**
     * Completes the receive at the head of the RQ (siw_rqe_complete). Returns false if the queue was flushed
     * meanwhile.
     */
    boolean completeReceive(ReceiveWqe expected, WcStatus status, int byteLength, boolean invalidated, int rkey) {
        synchronized (qp.rqLock) { // only the flush contends for it
            long head = qp.rqHead;
            if (qp.rqFlushed || head == qp.rqTail || qp.rq[(int) (head % qp.rq.length)] != expected) {
                return false;
            }
            long wrId = expected.wrId; // the last read of the slot: a poster may refill it once rqHead moves
            // the slot is free before the completion is visible: its consumer reposts as soon as it sees it
            qp.rqHead = head + 1;
            if (!qp.recvCq.push(wrId, status, WcOpcode.RECV, byteLength, qp.number, invalidated, rkey, 0)) {
                qp.cqOverrun();
            }
            return true;
        }
    }
}
