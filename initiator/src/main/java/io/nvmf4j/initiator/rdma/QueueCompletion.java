package io.nvmf4j.initiator.rdma;

import io.nvmf4j.initiator.NvmeRequest;
import io.nvmf4j.initiator.NvmfException;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.verbs.QueuePair;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;

/**
 * Completion handling of one connection of a queue, run by its {@link CompletionPoller}: send completions
 * ({@code nvme_rdma_send_done()}) and response capsules ({@code nvme_rdma_recv_done()},
 * {@code nvme_rdma_process_nvme_rsp()}); a command finishes when both are in, since its SQE may be reused only
 * then. Then waiting commands take the freed slots, and the timeouts run every tick.
 */
final class QueueCompletion implements CompletionPoller.Sink {

    private final QueueState q;
    private final QueueSubmission submission;
    private final QueueRecovery recovery;
    private final int generation;
    /** Requests started under the lock and posted after releasing it (this thread only). */
    private final RequestSlot[] posts;
    private final NvmeRequest[] postCommands;

    QueueCompletion(QueueState q, QueueSubmission submission, QueueRecovery recovery, int generation) {
        this.q = q;
        this.submission = submission;
        this.recovery = recovery;
        this.generation = generation;
        this.posts = new RequestSlot[q.queueSize];
        this.postCommands = new NvmeRequest[q.queueSize];
    }

    @Override
    public boolean running() {
        return q.pollerRunning && generation == q.connectionGeneration;
    }

    @Override
    public boolean awaitsCompletions() {
        q.lock.lock();
        try {
            return q.requests.outstanding() > 0;
        } finally {
            q.lock.unlock();
        }
    }

    @Override
    public void round(WorkCompletion[] wcs, int n, long now, boolean tick) {
        q.loopNanos = now; // stamps the commands that the handlers below resubmit on this thread
        if (n > 0) {
            process(wcs, n);
        }
        if (tick) {
            recovery.expireTimedOut(now);
            recovery.nudgeIfSilent(now);
        }
        q.runCallbacks();
    }

    @Override
    public void cqFailed(String reason) {
        recovery.connectionFailed(-1, reason);
    }

    private void process(WorkCompletion[] wcs, int n) {
        String failure = null;
        int toPost = 0;
        QueuePair qp = null;
        q.lock.lock();
        try {
            if (generation != q.connectionGeneration || !q.isUp()) {
                return;
            }
            for (int i = 0; i < n && failure == null; i++) {
                WorkCompletion wc = wcs[i];
                if (wc.status() != WcStatus.SUCCESS) {
                    failure = (wc.opcode() == WcOpcode.RECV ? "RECV" : "SEND") + " completed with " + wc.status()
                            + (wc.vendorError() != 0 ? " (vendor error 0x" + Integer.toHexString(wc.vendorError()) + ")"
                            : "");
                    break;
                }
                long wrId = wc.wrId();
                if (ResponseBuffers.isReceive(wrId)) {
                    failure = onResponse(ResponseBuffers.index(wrId), wc.byteLength(), wc.withInvalidate(),
                            wc.invalidatedRkey());
                } else {
                    RequestSlot slot = q.requests.active((int) wrId);
                    if (slot == null) {
                        continue; // a send completion for a slot already finished by an earlier failure
                    }
                    slot.sendDone = true;
                    if (slot.responseDone) {
                        finish(slot);
                    }
                }
            }
            if (failure == null) {
                toPost = submission.drainPending(posts, postCommands, true);
                qp = q.connection.queuePair();
            } else {
                recovery.markFailed(q.name + ": " + failure);
            }
        } finally {
            q.lock.unlock();
        }
        if (toPost > 0) {
            submission.postAll(qp, generation, posts, postCommands, toPost);
        }
        if (failure != null) {
            q.runCallbacks();
            q.failureListener.queueFailed(q.queue, q.name + ": " + failure);
        }
    }

    /**
     * Parses one response capsule; returns a failure reason or null. {@code withInvalidate}: it came by Send with
     * Invalidate, which ended the window {@code invalidatedRkey} at the host.
     */
    private String onResponse(int index, int byteLength, boolean withInvalidate, int invalidatedRkey) {
        if (index >= q.responses.count()) {
            return "receive completion for unknown buffer " + index;
        }
        if (byteLength < CompletionQueueEntry.SIZE) {
            return "response capsule of " + byteLength + " bytes, shorter than a CQE";
        }
        CompletionQueueEntry cqe = q.responses.cqe(index);
        int cid = cqe.cid();
        int statusField = cqe.statusField();
        long result = cqe.result();
        q.lastSqHead = cqe.sqHead();
        q.nudge.responseSeen();
        try {
            q.responses.repost(q.connection.queuePair(), index);
        } catch (VerbsException e) {
            return "re-posting a receive failed: " + e.getMessage();
        }
        RequestSlot slot = q.requests.lookup(cid);
        if (slot == null) {
            // nvme_rdma_process_nvme_rsp(): "tag not found" -> error recovery
            return String.format("completion for unknown command id %d (0x%04x)", cid, cid);
        }
        if (withInvalidate && (!slot.keyed || invalidatedRkey != slot.window.rkey())) {
            // nvme_rdma_process_nvme_rsp(): "Bogus remote invalidation" -> error recovery. The window it ended
            // (another command's) is rebound when that command is sent again after the reconnect.
            return String.format("response to command id %d invalidated rkey 0x%08x, not the command's key%s",
                    cid, invalidatedRkey, slot.keyed ? String.format(" 0x%08x", slot.window.rkey()) : "");
        }
        // The response ends the target's access to the command's bytes: if Send with Invalidate did not end the
        // window, end it here (nvme_rdma_inv_rkey()), before the command completes or its bounce buffer is copied.
        q.requests.invalidate(slot);
        slot.responseDone = true;
        slot.status = statusField;
        slot.result = result;
        if (slot.sendDone) {
            finish(slot);
        }
        return null;
    }

    private void finish(RequestSlot slot) {
        int status = slot.status;
        long result = slot.result;
        NvmeRequest command;
        try {
            command = q.requests.finish(slot);
        } catch (RuntimeException e) {
            // copying a read out of its bounce buffer into the caller's memory failed (a segment confined to
            // another thread, or one already closed): that command fails, the completion thread goes on
            command = q.requests.release(slot);
            q.callbacks.failLater(command, new NvmfException(q.name + ": the read's data could not be copied into"
                    + " the caller's memory: " + e));
            return;
        }
        q.callbacks.completed(command, status, result);
    }
}
