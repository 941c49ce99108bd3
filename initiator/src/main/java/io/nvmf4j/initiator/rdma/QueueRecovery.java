package io.nvmf4j.initiator.rdma;

import io.nvmf4j.initiator.NvmeRequest;
import io.nvmf4j.initiator.NvmfControllerLostException;
import io.nvmf4j.initiator.NvmfTimeoutException;
import io.nvmf4j.initiator.rdma.QueueState.State;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Timeouts and failure of one queue: a command past its deadline fails and takes the queue down
 * ({@code nvme_rdma_timeout()}); a failed queue re-queues what was outstanding for the reconnect, at most
 * {@link #MAX_RETRIES} times per command ({@code nvme_decide_disposition()}), and fails the connect sequence's
 * own commands; the controller hears of the first failure through the {@link io.nvmf4j.initiator.QueueFailureListener}.
 */
final class QueueRecovery {

    /**
     * Times a command is sent again after the connection failed under it, then it fails: Linux's nvme_max_retries
     * (5) in {@code nvme_decide_disposition()}. Without a bound, a target that breaks the connection on one
     * command (e.g. by touching memory outside it) would have it retried after every reconnect, for ever.
     */
    static final int MAX_RETRIES = 5;

    private final QueueState q;

    QueueRecovery(QueueState q) {
        this.q = q;
    }

    /** Fails or re-queues everything outstanding; the caller holds the lock. Returns true on the first failure. */
    boolean markFailed(String reason) {
        if (!q.isUp()) {
            return false;
        }
        q.state = State.DOWN;
        q.failureReason = reason;
        q.pollerRunning = false;
        // Outstanding commands go back to the head of the queue in tag order (the QP is in error: the target can
        // no longer touch our buffers, so slots and bounce buffers are free again).
        ArrayDeque<NvmeRequest> retry = new ArrayDeque<>();
        for (int tag = 0; tag < q.queueSize; tag++) {
            RequestSlot slot = q.requests.active(tag);
            if (slot != null) {
                NvmeRequest command = q.requests.release(slot);
                if (command.retryAfterReconnect() && command.retries() < MAX_RETRIES) {
                    command.retries(command.retries() + 1);
                    retry.addLast(command);
                } else {
                    q.callbacks.failLater(command, new NvmfControllerLostException(q.name + ": " + reason + "; "
                            + command.describe() + " failed" + (command.retryAfterReconnect()
                            ? " (the connection failed under it " + (MAX_RETRIES + 1) + " times)" : "")));
                }
            }
        }
        for (var it = retry.descendingIterator(); it.hasNext(); ) {
            q.pending.addFirst(it.next());
        }
        // Commands of the connect sequence waiting in the queue cannot survive either.
        for (var it = q.pending.iterator(); it.hasNext(); ) {
            NvmeRequest command = it.next();
            if (!command.retryAfterReconnect()) {
                it.remove();
                q.callbacks.failLater(command, new NvmfControllerLostException(q.name + ": " + reason + "; "
                        + command.describe() + " failed"));
            }
        }
        return true;
    }

    /** Like nvme_rdma_timeout(): a command past its deadline fails and the whole queue fails (controller reset). */
    void expireTimedOut(long now) {
        String failure = null;
        q.lock.lock();
        try {
            if (!q.isUp()) {
                return;
            }
            long ms = TimeUnit.NANOSECONDS.toMillis(q.commandTimeoutNanos);
            for (int tag = 0; tag < q.queueSize; tag++) {
                RequestSlot slot = q.requests.active(tag);
                if (slot != null && slot.expired(now, q.commandTimeoutNanos)) {
                    NvmeRequest command = q.requests.release(slot);
                    q.callbacks.failLater(command, new NvmfTimeoutException(q.name + ": " + command.describe()
                            + " got no response within " + ms + " ms"));
                    if (failure == null) {
                        failure = command.describe() + " timed out after " + ms + " ms";
                    }
                }
            }
            if (failure != null) {
                markFailed(q.name + ": " + failure);
            }
        } finally {
            q.lock.unlock();
        }
        if (failure != null) {
            q.runCallbacks();
            q.failureListener.queueFailed(q.queue, q.name + ": " + failure);
        }
    }

    /** See {@link SiwNudge}: only while CONNECTING, before any response. */
    void nudgeIfSilent(long now) {
        q.lock.lock();
        try {
            if (q.state != State.CONNECTING || q.connection == null) {
                return;
            }
            long oldestStart = Long.MAX_VALUE;
            for (int tag = 0; tag < q.queueSize; tag++) {
                RequestSlot slot = q.requests.active(tag);
                if (slot != null) {
                    oldestStart = Math.min(oldestStart, slot.startNanos);
                }
            }
            q.nudge.maybeNudge(now, oldestStart, q.connection.queuePair());
        } finally {
            q.lock.unlock();
        }
    }

    /** The connection of {@code generation} (-1: whatever is current) is broken. */
    void connectionFailed(int generation, String reason) {
        boolean first;
        q.lock.lock();
        try {
            if (generation != -1 && generation != q.connectionGeneration) {
                return; // a late event of a connection already replaced
            }
            first = markFailed(q.name + ": " + reason);
        } finally {
            q.lock.unlock();
        }
        q.runCallbacks();
        if (first) {
            q.failureListener.queueFailed(q.queue, q.name + ": " + reason);
        }
    }
}
