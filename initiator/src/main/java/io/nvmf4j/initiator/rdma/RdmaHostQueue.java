package io.nvmf4j.initiator.rdma;

import io.nvmf4j.initiator.HostQueue;
import io.nvmf4j.initiator.NvmeRequest;
import io.nvmf4j.initiator.NvmfConnectException;
import io.nvmf4j.initiator.NvmfControllerLostException;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.initiator.QueueFailureListener;
import io.nvmf4j.initiator.rdma.QueueState.State;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.QueueLimits;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePair;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;

/**
 * One NVMe queue over one RDMA reliable connection: the host half of the NVMe/RDMA transport binding, mirroring
 * Linux {@code drivers/nvme/host/rdma.c} ({@code struct nvme_rdma_queue}). Its parts:
 *
 * <ul>
 *   <li>{@link QueueConnector}: connection setup and the CM private data.</li>
 *   <li>{@link RequestTable}: one preallocated {@link RequestSlot} per tag ({@code struct nvme_rdma_request}), the
 *       bounce buffers, and the data mapping with its per-command memory window (issue 13, F6).</li>
 *   <li>{@link QueueState}: what the parts share ({@code struct nvme_rdma_queue}), under one lock.</li>
 *   <li>{@link QueueSubmission}: FIFO back-pressure (never more than {@link #maxOutstanding()}), post after the
 *       lock.</li>
 *   <li>{@link QueueCompletion} on a {@link CompletionPoller} (the spin-then-block completion thread): send and
 *       response completions; callbacks run on it via {@link CallbackQueue}, outside the lock.</li>
 *   <li>{@link QueueRecovery}: timeouts, failure, re-queueing for the reconnect.</li>
 *   <li>This class: the API, and the connection's life (connect, disconnect, close).</li>
 * </ul>
 *
 * <p>Exposure (issue 13, F6): a keyed SGL asks for remote invalidation (subtype Fh, NVMe-oF 1.1, 7.3.2) when the
 * provider lets a peer end the window; a response that invalidated another key is a protocol error ("Bogus remote
 * invalidation" in {@code nvme_rdma_process_nvme_rsp()}); a response that invalidated nothing makes the host
 * invalidate locally ({@code nvme_rdma_inv_rkey()}) before the command completes or its bounce buffer is copied out.
 *
 * <p>Data path without allocation or hand-off: a command takes its slot under the lock and is posted after the lock
 * is released, so a post that writes to a socket never holds up the completion thread. A command submitted on the
 * completion thread itself is posted right there, stamped with the loop's clock reading.
 */
final class RdmaHostQueue implements HostQueue {

    private static final Logger LOG = System.getLogger(RdmaHostQueue.class.getName());

    /** Response capsule size: a bare CQE (IORCSZ 1). */
    public static final int RESPONSE_SIZE = ResponseBuffers.RESPONSE_SIZE;

    /** The 0's-based size, computed once: HSQSIZE of the CM request and SQSIZE of this queue's Connect. */
    private final int sqsize;
    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final long spinNanos;
    private final Arena arena = Arena.ofShared();
    private final QueueState q;
    private final QueueRecovery recovery;
    private final QueueSubmission submission;
    /** The claim whose CQ has a claimant's wake armed ({@link #wakeOnCompletion}); that thread's only. */
    private volatile PollingClaim armedClaim;

    /**
     * Allocates the queue's registered memory (SQEs, response buffers, bounce buffers); nothing is sent until
     * {@link #connect}.
     *
     * @param queueSize  entries: HRQSIZE of the CM request; at most queueSize - 1 commands are outstanding
     * @param bufferSize bytes per bounce buffer
     * @param buffers    bounce buffers
     */
    RdmaHostQueue(String name, QueueId qid, int queueSize, RdmaDevice device, ProtectionDomain pd,
            int bufferSize, int buffers, Duration commandTimeout, Duration spinBudget,
            QueueFailureListener failureListener) throws VerbsException {
        if (queueSize < 2 || queueSize > CommandIdAllocator.MAX_CAPACITY) {
            throw new IllegalArgumentException("queue size " + queueSize + " outside 2.." + CommandIdAllocator.MAX_CAPACITY);
        }
        this.sqsize = QueueLimits.sqsize(queueSize);
        this.device = device;
        this.pd = pd;
        this.spinNanos = spinBudget.toNanos();
        RequestTable table = null;
        ResponseBuffers responses;
        try {
            table = new RequestTable(pd, arena, queueSize, bufferSize, buffers);
            responses = new ResponseBuffers(pd, arena, queueSize);
        } catch (VerbsException | RuntimeException e) {
            if (table != null) {
                table.close();
            }
            arena.close();
            throw e;
        }
        this.q = new QueueState(this, name, qid, queueSize, commandTimeout.toNanos(), failureListener, table,
                responses);
        this.recovery = new QueueRecovery(q);
        this.submission = new QueueSubmission(q, recovery);
    }

    @Override
    public String name() {
        return q.name;
    }

    @Override
    public QueueId qid() {
        return q.qid;
    }

    /** Entries of the queue (HRQSIZE). */
    public int queueSize() {
        return q.queueSize;
    }

    /** The 0's-based queue size: HSQSIZE of the CM request, to be sent as SQSIZE of the queue's Connect. */
    @Override
    public int sqsize() {
        return sqsize;
    }

    /** Most commands outstanding at once: queueSize - 1, lowered to CRQSIZE - 1 if the target asked for less. */
    public int maxOutstanding() {
        return q.maxOutstanding;
    }

    /** Bytes of write data sent inside the capsule, 0 when off (admin queue, or the controller does not offer it). */
    public int inCapsuleCapacity() {
        return q.inCapsuleCapacity;
    }

    /** Enables in-capsule data up to {@code bytes} (IOCCSZ * 16 - 64), capped at one bounce buffer. */
    @Override
    public void inCapsuleCapacity(int bytes) {
        q.inCapsuleCapacity = Math.max(0, Math.min(bytes, q.requests.bufferSize()));
    }

    @Override
    public int bufferSize() {
        return q.requests.bufferSize();
    }

    /** The SQ head pointer of the latest response (SQHD), -1 before the first. */
    public int lastSqHead() {
        return q.lastSqHead;
    }

    @Override
    public boolean isLive() {
        return q.state == State.LIVE;
    }

    /**
     * Connects the RDMA queue pair ({@code rdma_connect} with the NVMe RDMA CM request) and starts the completion
     * thread. Afterwards only {@link #submitInit} commands go out until {@link #markLive()}.
     *
     * @throws NvmfConnectException refused, rejected (naming the NVMe RDMA CM status) or timed out
     */
    @Override
    public void connect(InetSocketAddress address, Duration timeout) throws NvmfConnectException {
        q.lock.lock();
        try {
            if (q.state == State.CLOSED) {
                throw new NvmfConnectException(q.name + ": queue is closed");
            }
            if (q.state != State.DOWN) {
                throw new IllegalStateException(q.name + " is already connected");
            }
        } finally {
            q.lock.unlock();
        }
        QueueConnector.Connected c = QueueConnector.connect(q.name, q.qid, q.queueSize, sqsize, device, pd,
                q.responses, address, timeout);
        int generation;
        q.lock.lock();
        try {
            q.connection = c.connection();
            q.cq = c.cq();
            q.maxOutstanding = Math.max(1, Math.min(q.queueSize, c.crqsize()) - 1);
            q.failureReason = null;
            q.nudge.reset();
            q.state = State.CONNECTING;
            generation = ++q.connectionGeneration;
            q.pollerRunning = true;
            int batch = Math.min(32, q.queueSize * 2);
            QueueCompletion sink = new QueueCompletion(q, submission, recovery, generation);
            PollingClaim claim = new PollingClaim(q, q.cq, sink, batch);
            q.claim = claim;
            q.poller = CompletionPoller.start("nvmf4j-" + q.name, q.cq, batch, spinNanos, sink, claim);
            q.completionThread = q.poller;
        } finally {
            q.lock.unlock();
        }
        c.connection().onDisconnect(event -> recovery.connectionFailed(generation,
                "connection ended: " + event.cause() + " " + event.detail()));
    }

    /** Lets queued commands go out: the queue's own Connect has succeeded. */
    @Override
    public void markLive() {
        submission.markLive();
    }

    /**
     * Queues a command. It goes out at once when the queue is live and has a free slot (and bounce buffer if it
     * needs one), otherwise it waits; while the connection is being re-established it waits for that.
     */
    @Override
    public void submit(NvmeRequest command) {
        submission.enqueue(command, false);
    }

    /** Sends a command of the connect sequence while the queue is CONNECTING (fails it if the queue is down). */
    @Override
    public void submitInit(NvmeRequest command) {
        submission.enqueue(command, true);
    }

    /**
     * Asks that the calling thread poll this queue's completions itself (and run their callbacks), in place of the
     * queue's completion thread, which then parks: true once it does. Ask again after a reconnect, and from time to
     * time until granted (the completion thread grants at its next poll, or when a wait of up to 20 ms ends).
     */
    @Override
    public boolean claimPolling() {
        PollingClaim c = q.claim;
        return c != null && c.request(Thread.currentThread());
    }

    /**
     * On a thread that {@link #claimPolling claimed} the queue: handles the completions its CQ holds now; their
     * number, or -1 when this thread does not hold the queue (not granted yet, or the connection changed).
     */
    @Override
    public int pollClaimed() {
        PollingClaim c = q.claim;
        return c == null ? -1 : c.poll(Thread.currentThread());
    }

    /** Gives the polling back to the queue's completion thread (before the claimant sleeps or ends). */
    @Override
    public void releasePolling() {
        cancelWake();
        PollingClaim c = q.claim;
        if (c != null) {
            c.release(Thread.currentThread());
        }
    }

    /**
     * Keeps the claim while the claimant sleeps: its {@code wake} runs at the CQ's next completion (softiwarp's
     * engine reads the socket meanwhile); 0 where the CQ cannot call back (ibverbs) or nothing was armed.
     */
    @Override
    public long wakeOnCompletion(Runnable wake) {
        return arm(wake, false);
    }

    /** The same, the claimant watching the connection's socket itself where softiwarp gives its descriptor. */
    @Override
    public long wakeOnCompletionWatching(Runnable wake) {
        return arm(wake, true);
    }

    private long arm(Runnable wake, boolean watching) {
        PollingClaim c = q.claim;
        if (c == null) {
            return 0;
        }
        long bound = c.armWake(Thread.currentThread(), wake, watching);
        if (bound > 0) {
            armedClaim = c;
        }
        return bound;
    }

    @Override
    public int waitDescriptor() {
        PollingClaim c = armedClaim;
        return c == null ? -1 : c.waitDescriptor();
    }

    /** Disarms on the claim that was armed, which after a reconnect is no longer the queue's current one. */
    @Override
    public void cancelWake() {
        PollingClaim c = armedClaim;
        if (c != null) {
            armedClaim = null;
            c.cancelWake();
        }
    }

    /**
     * Holds the calling thread's posts on the current queue pair until {@link #flushSends}: softiwarp then writes a
     * burst of command capsules to its socket at once, where each post would otherwise cost a system call of its
     * own. After a reconnect in between, the hold lies on the dead queue pair and the new one's posts go unheld.
     */
    @Override
    public void holdSends() {
        QueuePair qp = currentQueuePair();
        if (qp != null) {
            qp.holdSends();
        }
    }

    @Override
    public void flushSends() {
        QueuePair qp = currentQueuePair();
        if (qp != null) {
            qp.flushSends();
        }
    }

    private QueuePair currentQueuePair() {
        q.lock.lock();
        try {
            return q.connection == null ? null : q.connection.queuePair();
        } finally {
            q.lock.unlock();
        }
    }

    /** Commands waiting for a slot or for the connection. */
    @Override
    public int pendingCount() {
        q.lock.lock();
        try {
            return q.pending.size();
        } finally {
            q.lock.unlock();
        }
    }

    /** Commands posted and not yet finished. */
    public int outstandingCount() {
        q.lock.lock();
        try {
            return q.requests.outstanding();
        } finally {
            q.lock.unlock();
        }
    }

    /** Zero-length RDMA Writes sent because a new connection stayed silent (see {@link SiwNudge}). */
    public int nudgesSent() {
        q.lock.lock();
        try {
            return q.nudge.sent();
        } finally {
            q.lock.unlock();
        }
    }

    /** Called by the controller: the connection is to be considered broken. */
    public void connectionFailed(String reason) {
        recovery.connectionFailed(-1, reason);
    }

    /**
     * Tears the connection down (after a failure, before reconnecting): waits for the completion thread and
     * closes the queue pair and CQ. Commands waiting stay queued.
     */
    @Override
    public void disconnect() {
        Thread t;
        PollingClaim claim;
        boolean onPoller = q.onPoller();
        RdmaConnection conn;
        CompletionQueue oldCq;
        q.lock.lock();
        try {
            if (q.isUp()) {
                recovery.markFailed(q.name + ": disconnected");
            }
            q.pollerRunning = false;
            t = q.completionThread;
            q.completionThread = null;
            claim = q.claim;
            q.claim = null;
            q.poller = null;
            conn = q.connection;
            q.connection = null;
            oldCq = q.cq;
            q.cq = null;
        } finally {
            q.lock.unlock();
        }
        q.callbacks.run(q.lock, onPoller);
        if (claim != null) {
            claim.wake(); // a completion thread parked for a claimant sees the end at once
        }
        if (conn != null) {
            try {
                conn.close();
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, q.name + ": close failed", e);
            }
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (claim != null) {
            claim.cqClosing(); // a claimant's poll in progress ends before the CQ does
        }
        QueueConnector.closeQuietly(oldCq);
    }

    /** Fails every waiting command with {@code error} (ctrl-loss-tmo expired). */
    @Override
    public void failPending(NvmfException error) {
        for (NvmeRequest c : takePending()) {
            c.failed(error);
        }
    }

    private NvmeRequest[] takePending() {
        q.lock.lock();
        try {
            NvmeRequest[] waiting = q.pending.toArray(new NvmeRequest[0]);
            q.pending.clear();
            return waiting;
        } finally {
            q.lock.unlock();
        }
    }

    /** Disconnects, fails everything with a "closed" error and frees the registered memory. Idempotent. */
    @Override
    public void close() {
        q.lock.lock();
        try {
            if (q.state == State.CLOSED) {
                return;
            }
        } finally {
            q.lock.unlock();
        }
        disconnect();
        q.lock.lock();
        try {
            q.state = State.CLOSED;
        } finally {
            q.lock.unlock();
        }
        for (NvmeRequest c : takePending()) {
            c.failed(new NvmfControllerLostException(
                    q.name + ": controller closed; " + c.describe() + " not completed"));
        }
        q.requests.close();
        q.responses.close();
        arena.close();
    }

    /** Why the connection last failed, or null. */
    @Override
    public String failureReason() {
        return q.failureReason;
    }

    @Override
    public String toString() {
        return q.name + "[" + q.qid + ", size " + q.queueSize + ", " + q.state + "]";
    }
}
