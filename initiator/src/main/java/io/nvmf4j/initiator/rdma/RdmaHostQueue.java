package io.nvmf4j.initiator.rdma;

import io.nvmf4j.initiator.ControllerLostException;
import io.nvmf4j.initiator.NvmfConnectException;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.initiator.NvmfTimeoutException;
import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.QueueLimits;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePair;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One NVMe queue over one RDMA reliable connection: the host half of the NVMe/RDMA transport binding, mirroring
 * Linux {@code drivers/nvme/host/rdma.c} ({@code struct nvme_rdma_queue}). Its parts:
 *
 * <ul>
 *   <li>{@link QueueConnector}: connection setup and the CM private data.</li>
 *   <li>{@link RequestTable}: one preallocated {@link HostRequest} per tag ({@code struct nvme_rdma_request}), the
 *       bounce buffers, and the data mapping with its per-command memory window (issue 13, F6).</li>
 *   <li>This class: submission (FIFO back-pressure: never more than {@link #maxOutstanding()}), completion
 *       ({@code nvme_rdma_recv_done()}, {@code nvme_rdma_send_done()}: a command finishes when both its send
 *       completion and its response capsule are in), timeouts and failure, under one lock.</li>
 *   <li>{@link CompletionPoller}: the spin-then-block completion thread; callbacks run on it via
 *       {@link CallbackQueue}, outside the lock.</li>
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
public final class RdmaHostQueue implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RdmaHostQueue.class.getName());

    /** Response capsule size: a bare CQE (IORCSZ 1). */
    public static final int RESPONSE_SIZE = ResponseBuffers.RESPONSE_SIZE;
    /**
     * Times a command is sent again after the connection failed under it, then it fails: Linux's nvme_max_retries
     * (5) in {@code nvme_decide_disposition()}. Without a bound, a target that breaks the connection on one
     * command (e.g. by touching memory outside it) would have it retried after every reconnect, for ever.
     */
    static final int MAX_RETRIES = 5;

    private enum State { DOWN, CONNECTING, LIVE, CLOSED }

    private final String name;
    private final QueueId qid;
    private final int queueSize;
    /** The 0's-based size, computed once: HSQSIZE of the CM request and SQSIZE of this queue's Connect. */
    private final int sqsize;
    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final QueueFailureListener failureListener;
    private final long commandTimeoutNanos;
    private final long spinNanos;

    private final Arena arena = Arena.ofShared();
    private final RequestTable requests;
    private final ResponseBuffers responses;
    private final CallbackQueue callbacks;
    private final SiwNudge nudge;
    private final ArrayDeque<HostCommand> pending = new ArrayDeque<>();
    /** Requests the completion thread started under the lock and posts after releasing it. */
    private final HostRequest[] pollerPosts;
    private final HostCommand[] pollerPostCommands;
    private final SpinLock lock = new SpinLock();

    private volatile State state = State.DOWN;
    private int maxOutstanding;
    private int inCapsuleCapacity;
    private int lastSqHead = -1;
    private RdmaConnection connection;
    private CompletionQueue cq;
    private Thread poller;
    private volatile boolean pollerRunning;
    private int connectionGeneration;
    private String failureReason;
    /** The completion thread's time at the top of its current round (read only by that thread). */
    private long loopNanos;

    /**
     * Allocates the queue's registered memory (SQEs, response buffers, bounce buffers); nothing is sent until
     * {@link #connect}.
     *
     * @param queueSize  entries: HRQSIZE of the CM request; at most queueSize - 1 commands are outstanding
     * @param bufferSize bytes per bounce buffer
     * @param buffers    bounce buffers
     */
    public RdmaHostQueue(String name, QueueId qid, int queueSize, RdmaDevice device, ProtectionDomain pd,
            int bufferSize, int buffers, Duration commandTimeout, Duration spinBudget,
            QueueFailureListener failureListener) throws VerbsException {
        if (queueSize < 2 || queueSize > CommandIdAllocator.MAX_CAPACITY) {
            throw new IllegalArgumentException("queue size " + queueSize + " outside 2.." + CommandIdAllocator.MAX_CAPACITY);
        }
        this.name = name;
        this.qid = qid;
        this.queueSize = queueSize;
        this.sqsize = QueueLimits.sqsize(queueSize);
        this.device = device;
        this.pd = pd;
        this.failureListener = failureListener;
        this.commandTimeoutNanos = commandTimeout.toNanos();
        this.spinNanos = spinBudget.toNanos();
        this.maxOutstanding = queueSize - 1;
        RequestTable table = null;
        try {
            table = new RequestTable(pd, arena, queueSize, bufferSize, buffers);
            this.responses = new ResponseBuffers(pd, arena, queueSize);
        } catch (VerbsException | RuntimeException e) {
            if (table != null) {
                table.close();
            }
            arena.close();
            throw e;
        }
        this.requests = table;
        this.callbacks = new CallbackQueue(name, queueSize);
        this.nudge = new SiwNudge(name);
        this.pollerPosts = new HostRequest[queueSize];
        this.pollerPostCommands = new HostCommand[queueSize];
    }

    public String name() {
        return name;
    }

    public QueueId qid() {
        return qid;
    }

    /** Entries of the queue (HRQSIZE). */
    public int queueSize() {
        return queueSize;
    }

    /** The 0's-based queue size: HSQSIZE of the CM request, to be sent as SQSIZE of the queue's Connect. */
    public int sqsize() {
        return sqsize;
    }

    /** Most commands outstanding at once: queueSize - 1, lowered to CRQSIZE - 1 if the target asked for less. */
    public int maxOutstanding() {
        return maxOutstanding;
    }

    /** Bytes of write data sent inside the capsule, 0 when off (admin queue, or the controller does not offer it). */
    public int inCapsuleCapacity() {
        return inCapsuleCapacity;
    }

    /** Enables in-capsule data up to {@code bytes} (IOCCSZ * 16 - 64), capped at one bounce buffer. */
    public void inCapsuleCapacity(int bytes) {
        this.inCapsuleCapacity = Math.max(0, Math.min(bytes, requests.bufferSize()));
    }

    public int bufferSize() {
        return requests.bufferSize();
    }

    /** The SQ head pointer of the latest response (SQHD), -1 before the first. */
    public int lastSqHead() {
        return lastSqHead;
    }

    public boolean isLive() {
        return state == State.LIVE;
    }

    /**
     * Connects the RDMA queue pair ({@code rdma_connect} with the NVMe RDMA CM request) and starts the completion
     * thread. Afterwards only {@link #submitInit} commands go out until {@link #markLive()}.
     *
     * @throws NvmfConnectException refused, rejected (naming the NVMe RDMA CM status) or timed out
     */
    public void connect(InetSocketAddress address, Duration timeout) throws NvmfConnectException {
        lock.lock();
        try {
            if (state == State.CLOSED) {
                throw new NvmfConnectException(name + ": queue is closed");
            }
            if (state != State.DOWN) {
                throw new IllegalStateException(name + " is already connected");
            }
        } finally {
            lock.unlock();
        }
        QueueConnector.Connected c = QueueConnector.connect(name, qid, queueSize, sqsize, device, pd, responses,
                address, timeout);
        int generation;
        lock.lock();
        try {
            connection = c.connection();
            cq = c.cq();
            maxOutstanding = Math.max(1, Math.min(queueSize, c.crqsize()) - 1);
            failureReason = null;
            nudge.reset();
            state = State.CONNECTING;
            generation = ++connectionGeneration;
            pollerRunning = true;
            poller = CompletionPoller.start("nvmf4j-" + name, cq, Math.min(32, queueSize * 2), spinNanos,
                    new PollerSink(generation));
        } finally {
            lock.unlock();
        }
        c.connection().onDisconnect(event -> connectionFailed(generation,
                "connection ended: " + event.cause() + " " + event.detail()));
    }

    /** Lets queued commands go out: the queue's own Connect has succeeded. */
    public void markLive() {
        HostRequest[] started = new HostRequest[queueSize];
        HostCommand[] commands = new HostCommand[queueSize];
        int count = 0;
        QueuePair qp = null;
        int generation = 0;
        boolean onPoller = onPoller();
        lock.lock();
        try {
            if (state == State.CONNECTING) {
                state = State.LIVE;
                count = drainPending(started, commands, onPoller);
                qp = connection.queuePair();
                generation = connectionGeneration;
            }
        } finally {
            lock.unlock();
        }
        postAll(qp, generation, started, commands, count);
        if (!onPoller) {
            callbacks.run(lock, false);
        }
    }

    /**
     * Queues a command. It goes out at once when the queue is live and has a free slot (and bounce buffer if it
     * needs one), otherwise it waits; while the connection is being re-established it waits for that.
     */
    public void submit(HostCommand command) {
        enqueue(command, false);
    }

    /** Sends a command of the connect sequence while the queue is CONNECTING (fails it if the queue is down). */
    public void submitInit(HostCommand command) {
        enqueue(command, true);
    }

    /**
     * {@code init}: a command of the connect sequence, sent ahead of waiting I/O while CONNECTING and failed at once
     * when the queue is down; otherwise a command that waits behind earlier ones and for a reconnect.
     */
    private void enqueue(HostCommand command, boolean init) {
        NvmfException failure = null;
        QueuePair qp = null;
        int generation = 0;
        HostRequest req = null;
        boolean startFailed = false;
        boolean onPoller = onPoller();
        command.retries = 0;
        lock.lock();
        try {
            State s = state;
            boolean mayStart = init ? s == State.CONNECTING || s == State.LIVE : s == State.LIVE && pending.isEmpty();
            if (s == State.CLOSED && !init) {
                failure = new ControllerLostException(name + ": queue is closed; " + command.describe() + " not sent");
            } else if (mayStart) {
                RequestTable.Start started = tryStart(command, onPoller);
                if (started == RequestTable.Start.STARTED) {
                    qp = connection.queuePair();
                    generation = connectionGeneration;
                    // read under the lock: a failure may free the request before the post
                    req = requests.active(command.tag);
                } else if (started == RequestTable.Start.NO_ROOM) {
                    if (init) {
                        pending.addFirst(command);
                    } else {
                        pending.addLast(command);
                    }
                } else {
                    startFailed = true;
                }
            } else if (init) {
                failure = new ControllerLostException(name + ": not connected; " + command.describe() + " not sent");
            } else {
                pending.addLast(command);
            }
        } finally {
            lock.unlock();
        }
        if (qp != null) {
            post(qp, generation, req, command);
        }
        if (failure != null) {
            command.failed(failure);
        }
        if (startFailed) {
            callbacks.run(lock, onPoller);
        }
    }

    private boolean onPoller() {
        return Thread.currentThread() == poller;
    }

    /**
     * Posts the send of a command started under the lock, after releasing it: a post may write to a socket (a
     * software provider) and must never be made while holding the lock the completion thread needs. If the
     * connection failed in between, the command has already been re-queued and the post goes to a queue pair in
     * error (flushed) or fails (ignored below).
     */
    private void post(QueuePair qp, int generation, HostRequest req, HostCommand command) {
        try {
            qp.postSend(req.send);
        } catch (VerbsException | RuntimeException e) {
            postFailed(generation, req, command, e.getMessage());
        }
    }

    private void postAll(QueuePair qp, int generation, HostRequest[] started, HostCommand[] commands, int count) {
        for (int i = 0; i < count; i++) {
            HostCommand command = commands[i];
            HostRequest req = started[i];
            commands[i] = null;
            started[i] = null;
            post(qp, generation, req, command);
        }
    }

    /** The slot goes back; the command waits for the reconnect (or fails if it may not be retried). */
    private void postFailed(int generation, HostRequest req, HostCommand command, String why) {
        boolean first = false;
        String reason = null;
        lock.lock();
        try {
            if (generation == connectionGeneration && requests.active(req.tag) == req && req.command == command) {
                requests.release(req);
                pending.addFirst(command);
                first = markFailed(name + ": post send failed: " + why);
                reason = failureReason;
            }
        } finally {
            lock.unlock();
        }
        if (!onPoller()) {
            callbacks.run(lock, false);
        }
        if (first) {
            failureListener.queueFailed(this, reason);
        }
    }

    /** Commands waiting for a slot or for the connection. */
    public int pendingCount() {
        lock.lock();
        try {
            return pending.size();
        } finally {
            lock.unlock();
        }
    }

    /** Commands posted and not yet finished. */
    public int outstandingCount() {
        lock.lock();
        try {
            return requests.outstanding();
        } finally {
            lock.unlock();
        }
    }

    // ---- under the lock -------------------------------------------------------------------------------------

    /** {@link RequestTable#start} stamped with the right clock; a window that cannot be bound fails the command. */
    private RequestTable.Start tryStart(HostCommand command, boolean onPoller) {
        try {
            return requests.start(command, onPoller ? loopNanos : System.nanoTime(), maxOutstanding,
                    qid.isAdmin() ? 0 : inCapsuleCapacity);
        } catch (VerbsException e) {
            callbacks.failLater(command, new NvmfException(name + ": " + command.describe()
                    + ": cannot expose its data buffer to the controller: " + e.getMessage(), e));
            return RequestTable.Start.FAILED;
        }
    }

    /** Starts waiting commands while slots last; they go to {@code started} for posting after the lock. */
    private int drainPending(HostRequest[] started, HostCommand[] commands, boolean onPoller) {
        int count = 0;
        while (state == State.LIVE && !pending.isEmpty()) {
            HostCommand next = pending.pollFirst();
            RequestTable.Start outcome = tryStart(next, onPoller);
            if (outcome == RequestTable.Start.NO_ROOM) {
                pending.addFirst(next);
                break;
            }
            if (outcome == RequestTable.Start.FAILED) {
                continue;
            }
            started[count] = requests.active(next.tag);
            commands[count++] = next;
        }
        return count;
    }

    private void finish(HostRequest req) {
        int status = req.status;
        long result = req.result;
        callbacks.completed(requests.finish(req), status, result);
    }

    /** Fails or re-queues everything outstanding; the caller holds the lock. Returns true on the first failure. */
    private boolean markFailed(String reason) {
        if (state != State.LIVE && state != State.CONNECTING) {
            return false;
        }
        state = State.DOWN;
        failureReason = reason;
        pollerRunning = false;
        // Outstanding commands go back to the head of the queue in tag order (the QP is in error: the target can
        // no longer touch our buffers, so slots and bounce buffers are free again).
        ArrayDeque<HostCommand> retry = new ArrayDeque<>();
        for (int tag = 0; tag < queueSize; tag++) {
            HostRequest req = requests.active(tag);
            if (req != null) {
                HostCommand command = requests.release(req);
                if (command.retryAfterReconnect() && command.retries < MAX_RETRIES) {
                    command.retries++;
                    retry.addLast(command);
                } else {
                    callbacks.failLater(command, new ControllerLostException(name + ": " + reason + "; "
                            + command.describe() + " failed" + (command.retryAfterReconnect()
                            ? " (the connection failed under it " + (MAX_RETRIES + 1) + " times)" : "")));
                }
            }
        }
        for (var it = retry.descendingIterator(); it.hasNext(); ) {
            pending.addFirst(it.next());
        }
        // Commands of the connect sequence waiting in the queue cannot survive either.
        for (var it = pending.iterator(); it.hasNext(); ) {
            HostCommand command = it.next();
            if (!command.retryAfterReconnect()) {
                it.remove();
                callbacks.failLater(command, new ControllerLostException(name + ": " + reason + "; "
                        + command.describe() + " failed"));
            }
        }
        return true;
    }

    // ---- completion thread ----------------------------------------------------------------------------------

    /** The completion thread's view of connection {@code generation}. */
    private final class PollerSink implements CompletionPoller.Sink {
        private final int generation;

        PollerSink(int generation) {
            this.generation = generation;
        }

        @Override
        public boolean running() {
            return pollerRunning && generation == connectionGeneration;
        }

        @Override
        public void round(WorkCompletion[] wcs, int n, long now, boolean tick) {
            loopNanos = now; // stamps the commands that the handlers below resubmit on this thread
            if (n > 0) {
                process(wcs, n, generation);
            }
            if (tick) {
                expireTimedOut(now);
                nudgeIfSilent(now);
            }
            callbacks.run(lock, onPoller());
        }

        @Override
        public void cqFailed(String reason) {
            connectionFailed(reason);
        }
    }

    private void process(WorkCompletion[] wcs, int n, int generation) {
        String failure = null;
        int toPost = 0;
        QueuePair qp = null;
        lock.lock();
        try {
            if (generation != connectionGeneration || (state != State.LIVE && state != State.CONNECTING)) {
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
                    HostRequest req = requests.active((int) wrId);
                    if (req == null) {
                        continue; // a send completion for a slot already finished by an earlier failure
                    }
                    req.sendDone = true;
                    if (req.responseDone) {
                        finish(req);
                    }
                }
            }
            if (failure == null) {
                toPost = drainPending(pollerPosts, pollerPostCommands, true);
                qp = connection.queuePair();
            } else {
                markFailed(name + ": " + failure);
            }
        } finally {
            lock.unlock();
        }
        if (toPost > 0) {
            postAll(qp, generation, pollerPosts, pollerPostCommands, toPost);
        }
        if (failure != null) {
            callbacks.run(lock, onPoller());
            failureListener.queueFailed(this, name + ": " + failure);
        }
    }

    /**
     * Parses one response capsule (nvme_rdma_process_nvme_rsp()); returns a failure reason or null.
     * {@code withInvalidate}: it came by Send with Invalidate, which ended the window {@code invalidatedRkey}.
     */
    private String onResponse(int index, int byteLength, boolean withInvalidate, int invalidatedRkey) {
        if (index >= responses.count()) {
            return "receive completion for unknown buffer " + index;
        }
        if (byteLength < CompletionQueueEntry.SIZE) {
            return "response capsule of " + byteLength + " bytes, shorter than a CQE";
        }
        CompletionQueueEntry cqe = responses.cqe(index);
        int cid = cqe.cid();
        int statusField = cqe.statusField();
        long result = cqe.result();
        lastSqHead = cqe.sqHead();
        nudge.responseSeen();
        try {
            responses.repost(connection.queuePair(), index);
        } catch (VerbsException e) {
            return "re-posting a receive failed: " + e.getMessage();
        }
        HostRequest req = requests.lookup(cid);
        if (req == null) {
            // nvme_rdma_process_nvme_rsp(): "tag not found" -> error recovery
            return String.format("completion for unknown command id %d (0x%04x)", cid, cid);
        }
        if (withInvalidate && (!req.keyed || invalidatedRkey != req.window.rkey())) {
            // nvme_rdma_process_nvme_rsp(): "Bogus remote invalidation" -> error recovery. The window it ended
            // (another command's) is rebound when that command is sent again after the reconnect.
            return String.format("response to command id %d invalidated rkey 0x%08x, not the command's key%s",
                    cid, invalidatedRkey, req.keyed ? String.format(" 0x%08x", req.window.rkey()) : "");
        }
        // The response ends the target's access to the command's bytes: if Send with Invalidate did not end the
        // window, end it here, before the command completes or its bounce buffer is copied out.
        requests.invalidate(req);
        req.responseDone = true;
        req.status = statusField;
        req.result = result;
        if (req.sendDone) {
            finish(req);
        }
        return null;
    }

    /** See {@link SiwNudge}: only while CONNECTING, before any response. */
    private void nudgeIfSilent(long now) {
        lock.lock();
        try {
            if (state != State.CONNECTING || connection == null) {
                return;
            }
            long oldestStart = Long.MAX_VALUE;
            for (int tag = 0; tag < queueSize; tag++) {
                HostRequest req = requests.active(tag);
                if (req != null) {
                    oldestStart = Math.min(oldestStart, req.command.startNanos);
                }
            }
            nudge.maybeNudge(now, oldestStart, connection.queuePair());
        } finally {
            lock.unlock();
        }
    }

    /** Zero-length RDMA Writes sent because a new connection stayed silent (see {@link SiwNudge}). */
    public int nudgesSent() {
        lock.lock();
        try {
            return nudge.sent();
        } finally {
            lock.unlock();
        }
    }

    /** Like nvme_rdma_timeout(): a command past its deadline fails and the whole queue fails (controller reset). */
    private void expireTimedOut(long now) {
        String failure = null;
        lock.lock();
        try {
            if (state != State.LIVE && state != State.CONNECTING) {
                return;
            }
            long ms = TimeUnit.NANOSECONDS.toMillis(commandTimeoutNanos);
            for (int tag = 0; tag < queueSize; tag++) {
                HostRequest req = requests.active(tag);
                if (req != null && req.expired(now, commandTimeoutNanos)) {
                    HostCommand command = requests.release(req);
                    callbacks.failLater(command, new NvmfTimeoutException(name + ": " + command.describe()
                            + " got no response within " + ms + " ms"));
                    if (failure == null) {
                        failure = command.describe() + " timed out after " + ms + " ms";
                    }
                }
            }
            if (failure != null) {
                markFailed(name + ": " + failure);
            }
        } finally {
            lock.unlock();
        }
        if (failure != null) {
            callbacks.run(lock, onPoller());
            failureListener.queueFailed(this, name + ": " + failure);
        }
    }

    /** Called by the controller: the connection is to be considered broken. */
    public void connectionFailed(String reason) {
        connectionFailed(-1, reason);
    }

    /** From the provider's disconnect listener of connection {@code generation} (-1: whatever is current). */
    private void connectionFailed(int generation, String reason) {
        boolean first;
        lock.lock();
        try {
            if (generation != -1 && generation != connectionGeneration) {
                return; // a late event of a connection already replaced
            }
            first = markFailed(name + ": " + reason);
        } finally {
            lock.unlock();
        }
        callbacks.run(lock, onPoller());
        if (first) {
            failureListener.queueFailed(this, name + ": " + reason);
        }
    }

    /**
     * Tears the connection down (after a failure, before reconnecting): waits for the completion thread and
     * closes the queue pair and CQ. Commands waiting stay queued.
     */
    public void disconnect() {
        Thread t;
        RdmaConnection conn;
        CompletionQueue oldCq;
        lock.lock();
        try {
            if (state == State.LIVE || state == State.CONNECTING) {
                markFailed(name + ": disconnected");
            }
            pollerRunning = false;
            t = poller;
            poller = null;
            conn = connection;
            connection = null;
            oldCq = cq;
            cq = null;
        } finally {
            lock.unlock();
        }
        callbacks.run(lock, t == Thread.currentThread());
        if (conn != null) {
            try {
                conn.close();
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, name + ": close failed", e);
            }
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        QueueConnector.closeQuietly(oldCq);
    }

    /** Fails every waiting command with {@code error} (ctrl-loss-tmo expired). */
    public void failPending(NvmfException error) {
        HostCommand[] waiting;
        lock.lock();
        try {
            waiting = pending.toArray(new HostCommand[0]);
            pending.clear();
        } finally {
            lock.unlock();
        }
        for (HostCommand c : waiting) {
            c.failed(error);
        }
    }

    /** Disconnects, fails everything with a "closed" error and frees the registered memory. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (state == State.CLOSED) {
                return;
            }
        } finally {
            lock.unlock();
        }
        disconnect();
        HostCommand[] waiting;
        lock.lock();
        try {
            state = State.CLOSED;
            waiting = pending.toArray(new HostCommand[0]);
            pending.clear();
        } finally {
            lock.unlock();
        }
        for (HostCommand c : waiting) {
            c.failed(new ControllerLostException(name + ": controller closed; " + c.describe() + " not completed"));
        }
        requests.close();
        responses.close();
        arena.close();
    }

    /** Why the connection last failed, or null. */
    public String failureReason() {
        return failureReason;
    }

    @Override
    public String toString() {
        return name + "[" + qid + ", size " + queueSize + ", " + state + "]";
    }
}
