package io.nvmf4j.target.rdma;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.target.Controller;
import io.nvmf4j.target.DataDirection;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Request;
import io.nvmf4j.target.SubmissionQueue;
import io.nvmf4j.target.TransportQueue;
import io.nvmf4j.target.backend.BackendIo;
import io.nvmf4j.verbs.QueuePair;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;

/**
 * One NVMe queue carried by one RDMA queue pair (nvmet-rdma's {@code struct nvmet_rdma_queue}): the receive
 * buffers pre-posted for command capsules (HSQSIZE + 1 of them, each with room for the SQE and the port's in-capsule
 * data), twice as many {@link RdmaRequest}s with their CQEs in registered memory, and the core's
 * {@link SubmissionQueue}. This class receives capsules and drives each request through its state machine
 * ({@link #process}, SPDK's {@code nvmf_rdma_request_process()}); the concerns it drives have their own files, as in
 * nvmet-rdma's {@code rdma.c}, and each is handed the few parts it works with (and this queue only as a
 * {@link QueueCloser}, to end it):
 * <ul>
 *   <li>{@link QueueSizing}: the queue pair and completion-queue room a queue of a given depth takes;</li>
 *   <li>{@link QueueMemory}: receive buffers and request contexts ({@code nvmet_rdma_alloc_cmds/_rsps()});</li>
 *   <li>{@link ConnectPhase}: what a queue holds before Connect, the connect timeout, the connect/refusal log;</li>
 *   <li>{@link QueueBufferQuota}: this queue's share of the poll group's buffer pool (NEED_BUFFER);</li>
 *   <li>{@link QueueTimeouts}: the connect and RDMA Read timeouts and the peer's transmit progress
 *       ({@link TransmitProgress});</li>
 *   <li>{@link QueueWorkRequests}: receive, RDMA Read, RDMA Write + response Send posting;</li>
 *   <li>{@link QueueTeardown}: disconnect, flush and release ({@code nvmet_rdma_release_queue_work()}).</li>
 * </ul>
 *
 * <p>Until its NVMe Connect succeeds a queue holds almost nothing (a peer that has not connected is a stranger):
 * {@link QueueSizing#CONNECT_RECEIVES} receive buffer and two request contexts, the completion-queue room for them,
 * no pool buffer larger than the 1024 bytes of Connect data, and {@link RdmaTransportOptions#connectTimeout()} to
 * connect. The rest of the receive buffers and contexts, and their completion-queue room, come with a valid Connect.
 * Every method except {@link #queueResponse} and {@link #disconnect} runs on the owning
 * {@link PollGroup}'s thread; those two hand their work to it when called from elsewhere.
 */
final class RdmaQueue implements TransportQueue, QueueCloser {

    private static final System.Logger LOG = System.getLogger(RdmaQueue.class.getName());

    enum State { LIVE, DISCONNECTING, RELEASED }

    final PollGroup group;
    final int slot;
    final int generation;
    final Port port;
    final SubmissionQueue sq;
    final int hostQid;
    final int recvEntries;
    final int capsuleSize;
    final boolean trace;
    final InetSocketAddress remote;
    final InetSocketAddress local;

    /** Receive buffers, request contexts and their CQEs (nvmet_rdma_alloc_cmds / _rsps). */
    private final QueueMemory memory;
    /** Connect-phase room, timeout and announcement. */
    private final ConnectPhase connect;
    /** This queue's share of the poll group's buffer pool. */
    private final QueueBufferQuota quota;
    /** The connect timeout, the RDMA Read timeout and the bound on the peer's taking of what is sent. */
    private final QueueTimeouts timeouts;
    /** Receives, RDMA Reads/Writes and Sends posted on the queue pair, and how many have not completed. */
    private final QueueWorkRequests wrs;
    /** The state of the queue and the order of its end. */
    private final QueueTeardown teardown;

    RdmaQueue(PollGroup group, int slot, int generation, NvmeTarget target, Port port, CmConnectCheck.Accepted sizing,
              InetSocketAddress remote, InetSocketAddress local, boolean trace) throws VerbsException {
        this.group = group;
        this.slot = slot;
        this.generation = generation;
        this.port = port;
        this.hostQid = sizing.qid();
        this.recvEntries = sizing.recvQueueEntries();
        this.capsuleSize = SubmissionQueueEntry.SIZE + port.inlineDataSize();
        this.trace = trace;
        this.remote = remote;
        this.local = local;
        this.memory = new QueueMemory(this, group.protectionDomain(), slot, generation, recvEntries, capsuleSize,
                Math.min(QueueSizing.CONNECT_RECEIVES, recvEntries));
        this.wrs = new QueueWorkRequests(this, memory, group.poolRegion());
        this.sq = target.createQueue(port, this);
        TransportObserver observer = group.observer();
        this.connect = new ConnectPhase(this, group, observer, slot, recvEntries, hostQid, remote, sq, memory, wrs);
        this.quota = new QueueBufferQuota(this, group.queueBufferLimit(), group.buffers());
        this.timeouts = new QueueTimeouts(this, connect, memory,
                new TransmitProgress(this, memory, group.queueBufferLimit()));
        this.teardown = new QueueTeardown(this, group, observer, slot, hostQid, sq, connect, quota, wrs, memory);
    }

    QueuePairAttributes queuePairAttributes(int ird, int ord) {
        return QueueSizing.queuePairAttributes(recvEntries, ird, ord);
    }

    SubmissionQueueEntry sqeOf(int recvSlot) {
        return memory.sqe(recvSlot);
    }

    /** Runs on the accepting thread, on the new queue pair before the host may send: the Connect receive(s). */
    void postInitialReceives(QueuePair queuePair) throws VerbsException {
        wrs.postInitialReceives(queuePair, Math.min(QueueSizing.CONNECT_RECEIVES, recvEntries));
    }

    void connected(RdmaConnection c) {
        teardown.connected(c);
    }

    State state() {
        return teardown.state();
    }

    // ---- completions, on the poll-group thread ----

    void onCompletion(WorkCompletion wc, int kind, int index) {
        if (kind != WorkRequestIds.DATA || memory.request(index).data.signaled()) {
            wrs.completed(); // the unsignaled RDMA Write of read data was never counted: it reports only a failure
        }
        switch (kind) {
            case WorkRequestIds.RECV -> onReceive(wc, index);
            case WorkRequestIds.DATA -> onDataTransferDone(wc, memory.request(index));
            case WorkRequestIds.SEND -> onSendDone(wc, memory.request(index));
            default -> LOG.log(Level.WARNING, "{0}: completion of unknown kind {1}", this, kind);
        }
        if (teardown.state() != State.LIVE) {
            teardown.releaseIfQuiet();
        }
    }

    private void onReceive(WorkCompletion wc, int recvSlot) {
        if (wc.status() != WcStatus.SUCCESS) {
            if (wc.status() != WcStatus.WR_FLUSH_ERR) {
                reject(RejectReason.PROTOCOL_ERROR, "receive failed: " + wc.status());
            }
            return;
        }
        if (teardown.state() != State.LIVE) {
            return;
        }
        if (wc.byteLength() < SubmissionQueueEntry.SIZE) {
            // nvmet: "Ctrl Fatal Error: capsule size less than 64 bytes"
            reject(RejectReason.PROTOCOL_ERROR, "command capsule of " + wc.byteLength()
                    + " bytes, less than an SQE");
            return;
        }
        RdmaRequest r = memory.takeFree();
        if (r == null) {
            // cannot happen with a host that respects its queue size; drop and let the host time out
            LOG.log(Level.WARNING, "{0}: no free request context for a capsule; dropped", this);
            wrs.postReceive(recvSlot);
            return;
        }
        r.start(recvSlot, wc.byteLength(), group.batchNanos());
        process(r);
    }

    // ---- the request state machine (SPDK nvmf_rdma_request_process) ----

    /**
     * Runs {@code r} through every state it can pass now and stops at one that waits for an event
     * ({@link RdmaRequestState#waitsForEvent}), like SPDK's {@code nvmf_rdma_request_process()}. The events call it
     * after moving the request: capsule received ({@code NEW}), RDMA Read done ({@code READY_TO_EXECUTE}), response
     * queued by the core ({@code EXECUTED}), Send done ({@code COMPLETED}); and the poll loop, for a request given a
     * buffer after it waited ({@code HAVE_BUFFER}, {@link PendingBuffers#nextAssigned}). A buffer free at once moves
     * the request to {@code HAVE_BUFFER} inside the loop, which goes on from there. A nested call (the core answers a
     * refused command while {@code NEW} runs) leaves the request in a waiting state, where the outer loop stops as
     * well. Poll-group thread only; no allocation.
     */
    void process(RdmaRequest r) {
        RdmaRequestState prev;
        do {
            prev = r.state;
            switch (prev) {
                case NEW -> onNew(r);
                case HAVE_BUFFER -> onHaveBuffer(r);
                case READY_TO_EXECUTE -> {
                    r.to(RdmaRequestState.EXECUTING);
                    sq.execute(r.request);
                }
                case EXECUTED -> onExecuted(r);
                case COMPLETED -> onCompleted(r);
                case FREE, NEED_BUFFER, TRANSFERRING_HOST_TO_CONTROLLER, EXECUTING, TRANSFERRING_CONTROLLER_TO_HOST,
                     COMPLETING -> { } // an outside event moves it on
            }
        } while (r.state != prev);
    }

    /** NEW: the core prepares the command; the SGL is mapped and every peer-controlled length checked. */
    private void onNew(RdmaRequest r) {
        Request req = r.request;
        if (!sq.prepare(req)) {
            return; // already completed through queueResponse
        }
        r.started = true;
        group.observer().commandStarted(req);
        if (!connect.reserveFullRoom(req)) {
            return;
        }
        Status status = SglMapping.map(r, req.dataDirection(), port.inlineDataSize(), group.maxTransfer(port));
        if (!status.isSuccess()) {
            req.fail(status, req.errorLocation());
            return;
        }
        // every peer-controlled length is checked before a buffer is taken or a Read posted: exactly what the
        // command defines (1024 bytes for Connect), or for Get/Set Features and Dataset Management at most that
        long use = req.admitTransfer(r.transferLength);
        if (use < 0) {
            req.fail(StatusCode.SGL_INVALID_DATA.withDnr(), req.errorLocation());
            return;
        }
        r.transferLength = (int) use;
        if (r.inCapsule) {
            req.data(memory.inCapsuleData(r.recvSlot, r.remoteAddress, r.transferLength));
            r.to(RdmaRequestState.READY_TO_EXECUTE);
        } else if (r.transferLength == 0) {
            r.to(RdmaRequestState.READY_TO_EXECUTE);
        } else {
            // HAVE_BUFFER now (this loop goes on), or NEED_BUFFER until the poll loop takes it on
            r.to(RdmaRequestState.NEED_BUFFER);
            quota.needBuffer(r);
        }
    }

    /** HAVE_BUFFER: fetch the host's data by RDMA Read, or run the command. */
    private void onHaveBuffer(RdmaRequest r) {
        if (r.request.dataDirection() == DataDirection.HOST_TO_CONTROLLER) {
            r.to(RdmaRequestState.TRANSFERRING_HOST_TO_CONTROLLER);
            if (!wrs.postRead(r)) {
                r.request.fail(StatusCode.DATA_XFER_ERROR.status(), Request.NO_ERROR_LOCATION);
            }
        } else {
            if (sq.qidValue() == 0) {
                // admin data is built piecewise: never leak another command's bytes (I/O Reads fill every byte).
                // The bound queue's QID, not the RDMA-CM one: that is only what the peer claimed at CM time
                r.request.data().fill((byte) 0);
            }
            r.to(RdmaRequestState.READY_TO_EXECUTE);
        }
    }

    private void onDataTransferDone(WorkCompletion wc, RdmaRequest r) {
        if (r.state == RdmaRequestState.TRANSFERRING_HOST_TO_CONTROLLER) {
            r.pendingWrs--;
            if (wc.status() != WcStatus.SUCCESS) {
                // nvmet_rdma_read_data_done(): the command is dropped and the connection ends
                if (wc.status() != WcStatus.WR_FLUSH_ERR) {
                    reject(RejectReason.PROTOCOL_ERROR, "RDMA Read of host data failed: " + wc.status());
                }
                release(r);
                return;
            }
            if (teardown.state() != State.LIVE) {
                release(r);
                return;
            }
            r.to(RdmaRequestState.READY_TO_EXECUTE);
            process(r);
            return;
        }
        // the unsignaled RDMA Write of read data reports only when it failed or was flushed; the Send behind it
        // (flushed then) completes the request, so the Write is not in pendingWrs
        if (wc.status() != WcStatus.SUCCESS && wc.status() != WcStatus.WR_FLUSH_ERR) {
            LOG.log(Level.WARNING, "{0}: RDMA Write of data for {1} failed: {2}", this, r.request.sqe(), wc);
            beginTeardown("RDMA Write failed: " + wc.status());
        }
    }

    private void onSendDone(WorkCompletion wc, RdmaRequest r) {
        r.pendingWrs--;
        if (wc.status() != WcStatus.SUCCESS && wc.status() != WcStatus.WR_FLUSH_ERR) {
            LOG.log(Level.WARNING, "{0}: response Send failed: {1}", this, wc);
            beginTeardown("response Send failed: " + wc.status());
        }
        if (r.pendingWrs == 0) {
            r.to(RdmaRequestState.COMPLETED);
            process(r);
        }
    }

    /** COMPLETED: the response is delivered; everything goes back (and a Disconnect command ends the queue). */
    private void onCompleted(RdmaRequest r) {
        boolean disconnect = r.request.disconnectAfterResponse();
        release(r);
        if (disconnect) {
            beginTeardown("Disconnect command");
        }
    }

    // ---- responses ----

    /** nvmet_rdma_queue_response(): from any thread; the poll-group thread does the posting. */
    @Override
    public void queueResponse(Request request) {
        RdmaRequest r = (RdmaRequest) request.transportContext();
        if (group.isPollThread()) {
            responseQueued(r);
        } else {
            group.execute(() -> responseQueued(r));
        }
    }

    /** The core completed the command: the event out of EXECUTING (or of a check that failed before it ran). */
    private void responseQueued(RdmaRequest r) {
        if (teardown.state() == State.RELEASED) {
            // its backend ended after the queue was released: only the buffer is left to give back
            if (r.bufferOffset >= 0) {
                group.freeBuffer(r);
            }
            return;
        }
        r.to(RdmaRequestState.EXECUTED);
        process(r);
    }

    /** EXECUTED: the receive buffer is posted again, then RDMA Write of read data chained to the response Send. */
    private void onExecuted(RdmaRequest r) {
        Request req = r.request;
        if (r.started) {
            r.started = false;
            TransportObserver observer = group.observer();
            if (observer != TransportObserver.NONE) {
                observer.commandFinished(req, System.nanoTime() - r.arrivalNanos, true);
            }
        }
        connect.announce(req);
        if (teardown.state() != State.LIVE) {
            release(r);
            return;
        }
        if (connect.active() && !connect.ends(req)) {
            release(r);
            return;
        }
        // the receive buffer is free again before the response goes out (the host may send at once)
        if (r.recvSlot >= 0) {
            int s = r.recvSlot;
            r.recvSlot = -1;
            if (!wrs.postReceive(s)) {
                release(r);
                return;
            }
        }
        boolean dataOut = req.dataDirection() == DataDirection.CONTROLLER_TO_HOST && r.transferLength > 0
                && r.bufferOffset >= 0 && req.statusField() == 0;
        r.to(dataOut ? RdmaRequestState.TRANSFERRING_CONTROLLER_TO_HOST : RdmaRequestState.COMPLETING);
        if (!wrs.postResponse(r, dataOut)) {
            release(r);
            beginTeardown("posting a response failed");
        }
    }

    /**
     * Ends the connection of a peer that broke a rule or a limit: logged once per connection (rate-limited over
     * the transport, no stack trace), counted in {@code nvmf4j_rejected_total{reason}}.
     */
    @Override
    public void reject(RejectReason reason, String detail) {
        if (connect.firstRejection()) {
            group.reportRejected(reason, this + ": " + detail);
        }
        beginTeardown(detail);
    }

    /** Poll thread, every housekeeping round: the connect timeout, the RDMA Read timeout, transmit progress. */
    void checkTimeouts(long now, long connectTimeoutNanos, long readTimeoutNanos) {
        if (teardown.state() == State.LIVE) {
            timeouts.check(now, connectTimeoutNanos, readTimeoutNanos);
        }
    }

    /** Releases a request: buffer back to the pool, context back to the free list, waiters retried. */
    @Override
    public void release(RdmaRequest r) {
        if (r.state == RdmaRequestState.FREE) {
            return;
        }
        if (r.recvSlot >= 0) {
            // never answered (connection ending): the receive is not reposted
            r.recvSlot = -1;
        }
        if (r.bufferOffset >= 0) {
            group.freeBuffer(r);
        }
        if (r.started) {
            r.started = false;
            group.observer().commandFinished(r.request, System.nanoTime() - r.arrivalNanos, false);
        }
        r.to(RdmaRequestState.FREE);
        memory.free(r);
        quota.released(r);
    }

    @Override
    public void failed(RuntimeException e) {
        group.failed(this, e);
    }

    /** File and block-device I/O of this queue goes through its poll group's ring or workers. */
    @Override
    public BackendIo backendIo() {
        return group.backendIo();
    }

    /**
     * A timed-out backend operation keeps the pool buffer it was given: the request forgets it (its response goes out
     * without data), and the poll group frees it when the operation really ends.
     */
    @Override
    public Runnable detachData(Request request) {
        return group.detachBuffer((RdmaRequest) request.transportContext());
    }

    /** The core's work done elsewhere (authentication steps) comes back to this queue's poll thread. */
    @Override
    public void runOnQueueThread(Runnable task) {
        group.execute(task);
    }

    // ---- teardown ----

    /** The controller failed or is being deleted (any thread): close the connection. */
    @Override
    public void disconnect() {
        group.execute(() -> beginTeardown("controller teardown"));
    }

    @Override
    public String localAddress() {
        return local == null ? null : local.getAddress().getHostAddress();
    }

    @Override
    public String remoteAddress() {
        return remote == null || remote.getAddress() == null ? null : remote.getAddress().getHostAddress();
    }

    /** The QID of the RDMA-CM request private data: the only queue this connection may Connect. */
    @Override
    public int connectionQid() {
        return hostQid;
    }

    /**
     * Starts the end of the queue (nvmet_rdma_queue_disconnect() + release work): the connection is closed so every
     * posted work request flushes, the submission queue leaves its controller, and once the last flush is seen the
     * memory is freed. Idempotent.
     */
    @Override
    public void beginTeardown(String reason) {
        teardown.begin(reason);
    }

    boolean teardownOverdue(long nowNanos) {
        return teardown.overdue(nowNanos);
    }

    /** Frees everything (also used when flushes never came, or the poll group shuts down). */
    void releaseResources() {
        teardown.releaseResources();
    }

    /** Frees memory of a queue whose accept failed (its queue pair was never handed to us or is closed). */
    void abandon() {
        teardown.abandon();
    }

    static String address(InetSocketAddress a) {
        return a == null ? "?" : a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    @Override
    public String toString() {
        Controller c = sq == null ? null : sq.controller();
        return "rdma queue " + hostQid + (c == null ? "" : " of controller " + c.id()) + " from " + address(remote);
    }
}
