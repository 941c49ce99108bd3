package io.nvmf4j.initiator.rdma;

import io.nvmf4j.initiator.NvmeRequest;
import io.nvmf4j.initiator.QueueFailureListener;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.RdmaConnection;
import java.util.ArrayDeque;

/**
 * What one queue's parts share, like Linux {@code struct nvme_rdma_queue}: the lock, the connection state, the
 * command slots, the commands waiting and the outcomes waiting for their callbacks. {@link QueueSubmission},
 * {@link QueueCompletion} and {@link QueueRecovery} work on it; {@link RdmaHostQueue} owns it. Fields are guarded by
 * {@link #lock} unless marked volatile or said otherwise.
 */
final class QueueState {

    enum State { DOWN, CONNECTING, LIVE, CLOSED }

    final RdmaHostQueue queue;
    final String name;
    final QueueId qid;
    final int queueSize;
    final long commandTimeoutNanos;
    final QueueFailureListener failureListener;
    final RequestTable requests;
    final ResponseBuffers responses;
    final CallbackQueue callbacks;
    final SiwNudge nudge;
    final ArrayDeque<NvmeRequest> pending = new ArrayDeque<>();
    final SpinLock lock = new SpinLock();

    volatile State state = State.DOWN;
    int maxOutstanding;
    int inCapsuleCapacity;
    int lastSqHead = -1;
    RdmaConnection connection;
    CompletionQueue cq;
    /** The thread that polls the CQ now: the completion thread, or a claimant it lent the CQ to. */
    volatile Thread poller;
    /** This connection's completion thread (what teardown waits for). */
    volatile Thread completionThread;
    /** This connection's lending of the CQ ({@link PollingClaim}), null while down. */
    volatile PollingClaim claim;
    volatile boolean pollerRunning;
    int connectionGeneration;
    String failureReason;
    /** The completion thread's time at the top of its current round (read and written only by that thread). */
    long loopNanos;

    QueueState(RdmaHostQueue queue, String name, QueueId qid, int queueSize, long commandTimeoutNanos,
            QueueFailureListener failureListener, RequestTable requests, ResponseBuffers responses) {
        this.queue = queue;
        this.name = name;
        this.qid = qid;
        this.queueSize = queueSize;
        this.commandTimeoutNanos = commandTimeoutNanos;
        this.failureListener = failureListener;
        this.requests = requests;
        this.responses = responses;
        this.callbacks = new CallbackQueue(name, queueSize);
        this.nudge = new SiwNudge(name);
        this.maxOutstanding = queueSize - 1;
    }

    /** Connected: CONNECTING (connect sequence) or LIVE. */
    boolean isUp() {
        return state == State.LIVE || state == State.CONNECTING;
    }

    boolean onPoller() {
        return Thread.currentThread() == poller;
    }

    /** Calls back what was collected under the lock; call without holding it. */
    void runCallbacks() {
        callbacks.run(lock, onPoller());
    }
}
