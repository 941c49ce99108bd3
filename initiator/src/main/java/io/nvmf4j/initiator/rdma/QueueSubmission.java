package io.nvmf4j.initiator.rdma;

import io.nvmf4j.initiator.NvmeRequest;
import io.nvmf4j.initiator.NvmfControllerLostException;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.initiator.rdma.QueueState.State;
import io.nvmf4j.verbs.QueuePair;
import io.nvmf4j.verbs.VerbsException;

/**
 * Submission on one queue ({@code nvme_rdma_queue_rq()}): a command takes a {@link RequestSlot} under the lock or
 * waits in FIFO order (back-pressure: never more than {@code maxOutstanding}), and is posted after the lock is
 * released, so a post that writes to a socket never holds up the completion thread. A command submitted on the
 * completion thread itself is stamped with the loop's clock reading: no clock read, no allocation.
 */
final class QueueSubmission {

    private final QueueState q;
    private final QueueRecovery recovery;

    QueueSubmission(QueueState q, QueueRecovery recovery) {
        this.q = q;
        this.recovery = recovery;
    }

    /**
     * {@code init}: a command of the connect sequence, sent ahead of waiting I/O while CONNECTING and failed at once
     * when the queue is down; otherwise a command that waits behind earlier ones and for a reconnect.
     */
    void enqueue(NvmeRequest command, boolean init) {
        NvmfException failure = null;
        QueuePair qp = null;
        int generation = 0;
        RequestSlot slot = null;
        boolean startFailed = false;
        boolean onPoller = q.onPoller();
        command.retries(0);
        q.lock.lock();
        try {
            State s = q.state;
            boolean mayStart = init ? q.isUp() : s == State.LIVE && q.pending.isEmpty();
            if (s == State.CLOSED && !init) {
                failure = new NvmfControllerLostException(q.name + ": queue is closed; " + command.describe()
                        + " not sent");
            } else if (mayStart) {
                RequestTable.Start started = tryStart(command, onPoller);
                if (started == RequestTable.Start.STARTED) {
                    qp = q.connection.queuePair();
                    generation = q.connectionGeneration;
                    slot = q.requests.active(command.tag()); // under the lock: a failure may free it before the post
                } else if (started == RequestTable.Start.NO_ROOM) {
                    if (init) {
                        q.pending.addFirst(command);
                    } else {
                        q.pending.addLast(command);
                    }
                } else {
                    startFailed = true;
                }
            } else if (init) {
                failure = new NvmfControllerLostException(q.name + ": not connected; " + command.describe()
                        + " not sent");
            } else if (s == State.DOWN && !command.retryAfterReconnect()) {
                // a multipath command does not wait for this path's reconnect: it fails over (nvme_failover_req())
                failure = new NvmfControllerLostException(
                        q.name + ": reconnecting; " + command.describe() + " not sent");
            } else {
                q.pending.addLast(command);
            }
        } finally {
            q.lock.unlock();
        }
        if (qp != null) {
            post(qp, generation, slot, command);
        }
        if (failure != null) {
            command.failed(failure);
        }
        if (startFailed) {
            q.runCallbacks();
        }
    }

    /** Under the lock: {@link RequestTable#start} with the right clock; a window not bound fails the command. */
    private RequestTable.Start tryStart(NvmeRequest command, boolean onPoller) {
        try {
            return q.requests.start(command, onPoller ? q.loopNanos : System.nanoTime(), q.maxOutstanding,
                    q.qid.isAdmin() ? 0 : q.inCapsuleCapacity);
        } catch (VerbsException e) {
            q.callbacks.failLater(command, new NvmfException(q.name + ": " + command.describe()
                    + ": cannot expose its data buffer to the controller: " + e.getMessage(), e));
            return RequestTable.Start.FAILED;
        }
    }

    /** Under the lock: starts waiting commands while slots last, into {@code started} for posting after it. */
    int drainPending(RequestSlot[] started, NvmeRequest[] commands, boolean onPoller) {
        int count = 0;
        while (q.state == State.LIVE && !q.pending.isEmpty()) {
            NvmeRequest next = q.pending.pollFirst();
            RequestTable.Start outcome = tryStart(next, onPoller);
            if (outcome == RequestTable.Start.NO_ROOM) {
                q.pending.addFirst(next);
                break;
            }
            if (outcome == RequestTable.Start.FAILED) {
                continue;
            }
            started[count] = q.requests.active(next.tag());
            commands[count++] = next;
        }
        return count;
    }

    /**
     * Posts the send of a command started under the lock, after releasing it. If the connection failed in between,
     * the command has already been re-queued and the post goes to a queue pair in error (flushed) or fails.
     */
    void post(QueuePair qp, int generation, RequestSlot slot, NvmeRequest command) {
        try {
            qp.postSend(slot.send);
        } catch (VerbsException | RuntimeException e) {
            postFailed(generation, slot, command, e.getMessage());
        }
    }

    void postAll(QueuePair qp, int generation, RequestSlot[] started, NvmeRequest[] commands, int count) {
        for (int i = 0; i < count; i++) {
            NvmeRequest command = commands[i];
            RequestSlot slot = started[i];
            commands[i] = null;
            started[i] = null;
            post(qp, generation, slot, command);
        }
    }

    /** The slot goes back; the command waits for the reconnect (or fails if it may not be retried). */
    private void postFailed(int generation, RequestSlot slot, NvmeRequest command, String why) {
        boolean first = false;
        String reason = null;
        q.lock.lock();
        try {
            if (generation == q.connectionGeneration && q.requests.active(slot.tag) == slot
                    && slot.request == command) {
                q.requests.release(slot);
                q.pending.addFirst(command);
                first = recovery.markFailed(q.name + ": post send failed: " + why);
                reason = q.failureReason;
            }
        } finally {
            q.lock.unlock();
        }
        if (!q.onPoller()) {
            q.runCallbacks();
        }
        if (first) {
            q.failureListener.queueFailed(q.queue, reason);
        }
    }

    /** Lets queued commands go out: the queue's own Connect has succeeded. */
    void markLive() {
        RequestSlot[] started = new RequestSlot[q.queueSize];
        NvmeRequest[] commands = new NvmeRequest[q.queueSize];
        int count = 0;
        QueuePair qp = null;
        int generation = 0;
        boolean onPoller = q.onPoller();
        q.lock.lock();
        try {
            if (q.state == State.CONNECTING) {
                q.state = State.LIVE;
                count = drainPending(started, commands, onPoller);
                qp = q.connection.queuePair();
                generation = q.connectionGeneration;
            }
        } finally {
            q.lock.unlock();
        }
        postAll(qp, generation, started, commands, count);
        if (!onPoller) {
            q.runCallbacks();
        }
    }
}
