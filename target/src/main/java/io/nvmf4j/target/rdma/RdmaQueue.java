package io.nvmf4j.target.rdma;

import io.nvmf4j.protocol.CompletionQueueEntry;
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
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.QueuePair;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.EnumSet;

/**
 * One NVMe queue carried by one RDMA queue pair (nvmet-rdma's {@code struct nvmet_rdma_queue}): the receive
 * buffers pre-posted for command capsules (HSQSIZE + 1 of them, each with room for the SQE and the port's in-capsule
 * data), twice as many {@link RdmaRequest}s with their CQEs in registered memory, and the core's
 * {@link SubmissionQueue}.
 *
 * <p>Until its NVMe Connect succeeds a queue holds almost nothing (a peer that has not connected is a stranger):
 * {@link #CONNECT_RECEIVES} receive buffer and two request contexts, the completion-queue room for them, no pool
 * buffer larger than the 1024 bytes of Connect data, and {@link RdmaTransportOptions#connectTimeout()} to connect.
 * The rest of the receive buffers and contexts, and their completion-queue room, come with a valid Connect.
 * Every method except {@link #queueResponse} and {@link #disconnect} runs on the owning
 * {@link PollGroup}'s thread; those two hand their work to it when called from elsewhere.
 */
final class RdmaQueue implements TransportQueue {

    private static final System.Logger LOG = System.getLogger(RdmaQueue.class.getName());

    enum State { LIVE, DISCONNECTING, RELEASED }

    /** Receive buffers posted before Connect: a host sends nothing but its Connect until that is answered. */
    static final int CONNECT_RECEIVES = 1;

    final PollGroup group;
    final int slot;
    final int generation;
    final Port port;
    final SubmissionQueue sq;
    final int hostQid;
    final int recvEntries;
    final int capsuleSize;
    final int maxSendWr;
    final boolean trace;
    final InetSocketAddress remote;
    final InetSocketAddress local;

    /** The memory of the Connect phase: {@link #CONNECT_RECEIVES} receive buffers and their request CQEs. */
    private final Arena arena;
    private final MemoryRegion region;
    /** The memory of the other receive buffers and requests, allocated once Connect succeeded (else null). */
    private Arena fullArena;
    private MemoryRegion fullRegion;
    private final MemorySegment[] recvBuffers;
    private final ReceiveWorkRequest[] recvs;
    private final SubmissionQueueEntry[] sqes;
    /** Per receive buffer, the last in-capsule data slice handed out and its offset (reused when they match). */
    private final MemorySegment[] inCapsuleSlices;
    private final long[] inCapsuleOffsets;
    private final RdmaRequest[] requests;
    private final int[] freeStack;
    private int freeTop;
    /** Posted work requests whose completion has not been seen (receives + sends + reads + writes). */
    private int outstandingWrs;
    private volatile State state = State.LIVE;
    private volatile RdmaConnection connection;
    private volatile QueuePair qp;
    private long teardownDeadlineNanos;
    private boolean announced;
    /** When the connection was accepted (System.nanoTime), for the connect timeout. */
    final long acceptedNanos = System.nanoTime();
    /** No successful Connect yet (poll thread). */
    private boolean connectPhase = true;
    /** The completion-queue room of the full queue depth is reserved (from a Connect's execution on). */
    private boolean fullRoomReserved;
    /** The peer was logged and counted as refused once: never again for this connection. */
    private boolean rejectionReported;
    /** Pool bytes held (or waited for in the poll group's FIFO) by this queue's requests. */
    private long bufferBytesHeld;
    /** Requests waiting because this queue is at its pool limit (FIFO through {@link RdmaRequest#nextWaiting}). */
    private RdmaRequest quotaHead;
    private RdmaRequest quotaTail;
    private boolean servingQuota;

    RdmaQueue(PollGroup group, int slot, int generation, NvmeTarget target, Port port, CmConnectCheck.Accepted sizing,
              InetSocketAddress remote, InetSocketAddress local, boolean trace) throws VerbsException {
        this.group = group;
        this.slot = slot;
        this.generation = generation;
        this.port = port;
        this.hostQid = sizing.qid();
        this.recvEntries = sizing.recvQueueEntries();
        this.capsuleSize = SubmissionQueueEntry.SIZE + port.inlineDataSize();
        this.maxSendWr = queueSendWrs(recvEntries);
        this.trace = trace;
        this.remote = remote;
        this.local = local;
        int requestCount = 2 * recvEntries;
        this.recvBuffers = new MemorySegment[recvEntries];
        this.recvs = new ReceiveWorkRequest[recvEntries];
        this.sqes = new SubmissionQueueEntry[recvEntries];
        this.inCapsuleSlices = new MemorySegment[recvEntries];
        this.inCapsuleOffsets = new long[recvEntries];
        this.requests = new RdmaRequest[requestCount];
        this.freeStack = new int[requestCount];
        int first = Math.min(CONNECT_RECEIVES, recvEntries);
        this.arena = Arena.ofShared();
        try {
            MemorySegment memory = arena.allocate(phaseBytes(first), 4096);
            this.region = group.protectionDomain().register(memory, EnumSet.of(AccessFlag.LOCAL_WRITE));
            initSlots(0, first, memory, region);
        } catch (VerbsException | RuntimeException e) {
            arena.close();
            throw e;
        }
        this.sq = target.createQueue(port, this);
    }

    /** Receive buffers and request CQEs of {@code receives} receive slots (two requests per slot, like nvmet). */
    private long phaseBytes(int receives) {
        return (long) receives * capsuleSize + 2L * receives * CompletionQueueEntry.SIZE;
    }

    /** Sets up receive slots [from, to) and their requests in {@code memory}; the requests become free. */
    private void initSlots(int from, int to, MemorySegment memory, MemoryRegion reg) {
        long recvBytes = (long) (to - from) * capsuleSize;
        for (int i = from; i < to; i++) {
            long offset = (long) (i - from) * capsuleSize;
            recvBuffers[i] = memory.asSlice(offset, capsuleSize);
            recvs[i] = new ReceiveWorkRequest(1).wrId(WorkRequestIds.of(slot, generation, WorkRequestIds.RECV, i))
                    .local(reg, offset, capsuleSize);
            sqes[i] = SubmissionQueueEntry.wrap(memory.asSlice(offset, SubmissionQueueEntry.SIZE));
        }
        for (int i = 2 * to - 1; i >= 2 * from; i--) {
            long offset = recvBytes + (long) (i - 2 * from) * CompletionQueueEntry.SIZE;
            RdmaRequest r = new RdmaRequest(this, i, memory.asSlice(offset, CompletionQueueEntry.SIZE));
            r.send.wrId(WorkRequestIds.of(slot, generation, WorkRequestIds.SEND, i)).signaled(true)
                    .local(reg, offset, CompletionQueueEntry.SIZE);
            r.data.wrId(WorkRequestIds.of(slot, generation, WorkRequestIds.DATA, i)).signaled(true);
            requests[i] = r;
            freeStack[freeTop++] = i;
        }
    }

    /**
     * After a successful Connect: the other receive buffers and request contexts, each receive posted before the
     * Connect response goes out (the host may then submit its whole queue at once).
     */
    private boolean growAfterConnect() {
        int first = Math.min(CONNECT_RECEIVES, recvEntries);
        if (first == recvEntries) {
            return true;
        }
        Arena a = Arena.ofShared();
        try {
            MemorySegment memory = a.allocate(phaseBytes(recvEntries - first), 4096);
            fullRegion = group.protectionDomain().register(memory, EnumSet.of(AccessFlag.LOCAL_WRITE));
            fullArena = a;
            initSlots(first, recvEntries, memory, fullRegion);
        } catch (VerbsException | RuntimeException e) {
            LOG.log(Level.WARNING, "{0}: no memory for the queue''s receive buffers: {1}", this, e.getMessage());
            if (fullArena == null) {
                a.close();
            }
            return false;
        }
        for (int i = first; i < recvEntries; i++) {
            if (!postReceive(i)) {
                return false;
            }
        }
        return true;
    }

    /** Send-queue work requests a queue of {@code recvEntries} needs: a data transfer and a Send per request. */
    static int queueSendWrs(int recvEntries) {
        return 2 * 2 * recvEntries + 1;
    }

    /** Completion queue entries the queue may occupy at once. */
    static int completionQueueNeeds(int recvEntries) {
        return recvEntries + queueSendWrs(recvEntries);
    }

    QueuePairAttributes queuePairAttributes(int ird, int ord) {
        return new QueuePairAttributes(maxSendWr, recvEntries, 1, 1, 0, ird, ord);
    }

    SubmissionQueueEntry sqeOf(int recvSlot) {
        return sqes[recvSlot];
    }

    /** Runs on the accepting thread, on the new queue pair before the host may send: the Connect receive(s). */
    void postInitialReceives(QueuePair queuePair) throws VerbsException {
        this.qp = queuePair;
        int first = Math.min(CONNECT_RECEIVES, recvEntries);
        outstandingWrs = first;
        for (int i = 0; i < first; i++) {
            queuePair.postReceive(recvs[i]);
        }
    }

    void connected(RdmaConnection c) {
        this.connection = c;
        c.onDisconnect(event -> group.execute(() -> beginTeardown(describe(event))));
    }

    private static String describe(DisconnectEvent event) {
        return switch (event.cause()) {
            case PEER_DISCONNECT -> "host disconnected";
            case LOCAL_DISCONNECT -> "disconnected";
            default -> event.cause().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                    + (event.detail() == null || event.detail().isEmpty() ? "" : ": " + event.detail());
        };
    }

    State state() {
        return state;
    }

    // ---- completions, on the poll-group thread ----

    void onCompletion(WorkCompletion wc, int kind, int index) {
        outstandingWrs--;
        switch (kind) {
            case WorkRequestIds.RECV -> onReceive(wc, index);
            case WorkRequestIds.DATA -> onDataTransferDone(wc, requests[index]);
            case WorkRequestIds.SEND -> onSendDone(wc, requests[index]);
            default -> LOG.log(Level.WARNING, "{0}: completion of unknown kind {1}", this, kind);
        }
        if (state != State.LIVE) {
            releaseIfQuiet();
        }
    }

    private void onReceive(WorkCompletion wc, int recvSlot) {
        if (wc.status() != WcStatus.SUCCESS) {
            if (wc.status() != WcStatus.WR_FLUSH_ERR) {
                reject(RejectReason.PROTOCOL_ERROR, "receive failed: " + wc.status());
            }
            return;
        }
        if (state != State.LIVE) {
            return;
        }
        if (wc.byteLength() < SubmissionQueueEntry.SIZE) {
            // nvmet: "Ctrl Fatal Error: capsule size less than 64 bytes"
            reject(RejectReason.PROTOCOL_ERROR, "command capsule of " + wc.byteLength()
                    + " bytes, less than an SQE");
            return;
        }
        if (freeTop == 0) {
            // cannot happen with a host that respects its queue size; drop and let the host time out
            LOG.log(Level.WARNING, "{0}: no free request context for a capsule; dropped", this);
            postReceive(recvSlot);
            return;
        }
        RdmaRequest r = requests[freeStack[--freeTop]];
        r.start(recvSlot, wc.byteLength(), group.batchNanos());
        process(r);
    }

    // ---- the request state machine (SPDK nvmf_rdma_request_process) ----

    /**
     * Runs {@code r} through every state it can pass now and stops at one that waits for an event
     * ({@link RdmaRequestState#waitsForEvent}), like SPDK's {@code nvmf_rdma_request_process()}. The events call it
     * after moving the request: capsule received ({@code NEW}), buffer assigned ({@code HAVE_BUFFER}), RDMA Read
     * done ({@code READY_TO_EXECUTE}), response queued by the core ({@code EXECUTED}), Send done ({@code COMPLETED}).
     * A nested call (the core answers a refused command while {@code NEW} runs) leaves the request in a waiting
     * state, where the outer loop stops as well. Poll-group thread only; no allocation.
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
        if (connectPhase && !fullRoomReserved) {
            // a Connect (nothing else passes prepare on an unbound queue) runs: reserve the completion-queue room
            // of the full queue now, and give it back if the Connect fails
            if (!group.resizeReservation(slot, completionQueueNeeds(recvEntries))) {
                LOG.log(Level.WARNING, "{0}: no completion-queue room for {1} entries; Connect refused", this,
                        recvEntries);
                req.fail(StatusCode.CONNECT_CTRL_BUSY.status(), Request.NO_ERROR_LOCATION);
                return;
            }
            fullRoomReserved = true;
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
            req.data(inCapsuleData(r.recvSlot, r.remoteAddress, r.transferLength));
            r.to(RdmaRequestState.READY_TO_EXECUTE);
        } else if (r.transferLength == 0) {
            r.to(RdmaRequestState.READY_TO_EXECUTE);
        } else {
            r.to(RdmaRequestState.NEED_BUFFER);
            needBuffer(r);
        }
    }

    /**
     * A buffer from the pool, within this queue's limit ({@link RdmaTransportOptions#queueBufferBytes()}): over it,
     * the request waits for this queue's own buffers, so one queue (one peer) cannot hold the whole pool.
     */
    private void needBuffer(RdmaRequest r) {
        long bytes = BufferPool.blockBytes(r.transferLength);
        if (quotaHead != null || bufferBytesHeld + bytes > group.queueBufferLimit()) {
            r.nextWaiting = null;
            if (quotaTail == null) {
                quotaHead = r;
            } else {
                quotaTail.nextWaiting = r;
            }
            quotaTail = r;
            return;
        }
        takeQuota(r, bytes);
    }

    private void takeQuota(RdmaRequest r, long bytes) {
        bufferBytesHeld += bytes;
        r.quotaBytes = bytes;
        if (!group.tryAssignBuffer(r)) {
            group.waitForBuffer(r);
        }
    }

    /** Moves requests waiting on this queue's limit on, oldest first, as far as the limit allows. */
    private void serveQuotaWaiters() {
        if (servingQuota) {
            return;
        }
        servingQuota = true;
        try {
            while (quotaHead != null && state == State.LIVE) {
                RdmaRequest r = quotaHead;
                long bytes = BufferPool.blockBytes(r.transferLength);
                if (bufferBytesHeld + bytes > group.queueBufferLimit()) {
                    return;
                }
                quotaHead = r.nextWaiting;
                if (quotaHead == null) {
                    quotaTail = null;
                }
                r.nextWaiting = null;
                takeQuota(r, bytes);
            }
        } finally {
            servingQuota = false;
        }
    }

    /** Releases the requests waiting on this queue's limit (the queue is going away). */
    private void dropQuotaWaiters() {
        RdmaRequest r = quotaHead;
        quotaHead = null;
        quotaTail = null;
        while (r != null) {
            RdmaRequest next = r.nextWaiting;
            r.nextWaiting = null;
            release(r);
            r = next;
        }
    }

    /** The in-capsule data at {@code offset} behind the SQE in receive buffer {@code recvSlot}. */
    private MemorySegment inCapsuleData(int recvSlot, long offset, int length) {
        MemorySegment s = inCapsuleSlices[recvSlot];
        if (s == null || inCapsuleOffsets[recvSlot] != offset || s.byteSize() != length) {
            s = recvBuffers[recvSlot].asSlice(SubmissionQueueEntry.SIZE + offset, length);
            inCapsuleSlices[recvSlot] = s;
            inCapsuleOffsets[recvSlot] = offset;
        }
        return s;
    }

    /** The poll group gave {@code r} its buffer (at {@code r.bufferOffset}): the event out of NEED_BUFFER. */
    void bufferAssigned(RdmaRequest r, MemorySegment buffer) {
        r.request.data(buffer);
        r.to(RdmaRequestState.HAVE_BUFFER);
        process(r);
    }

    /** HAVE_BUFFER: fetch the host's data by RDMA Read, or run the command. */
    private void onHaveBuffer(RdmaRequest r) {
        if (r.request.dataDirection() == DataDirection.HOST_TO_CONTROLLER) {
            r.to(RdmaRequestState.TRANSFERRING_HOST_TO_CONTROLLER);
            r.data.opcode(SendOpcode.RDMA_READ).local(group.poolRegion(), r.bufferOffset, r.transferLength)
                    .remote(r.remoteAddress, r.remoteKey).next(null);
            r.readPostedNanos = System.nanoTime();
            try {
                qp.postSend(r.data);
                r.pendingWrs = 1;
                outstandingWrs++;
            } catch (VerbsException e) {
                LOG.log(Level.WARNING, "{0}: posting RDMA Read failed: {1}", this, e.getMessage());
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
        r.pendingWrs--;
        if (r.state == RdmaRequestState.TRANSFERRING_HOST_TO_CONTROLLER) {
            if (wc.status() != WcStatus.SUCCESS) {
                // nvmet_rdma_read_data_done(): the command is dropped and the connection ends
                if (wc.status() != WcStatus.WR_FLUSH_ERR) {
                    reject(RejectReason.PROTOCOL_ERROR, "RDMA Read of host data failed: " + wc.status());
                }
                release(r);
                return;
            }
            if (state != State.LIVE) {
                release(r);
                return;
            }
            r.to(RdmaRequestState.READY_TO_EXECUTE);
            process(r);
            return;
        }
        // RDMA Write of read data: its Send follows and completes the request
        if (wc.status() != WcStatus.SUCCESS && wc.status() != WcStatus.WR_FLUSH_ERR) {
            LOG.log(Level.WARNING, "{0}: RDMA Write of data for {1} failed: {2}", this, r.request.sqe(), wc);
            beginTeardown("RDMA Write failed: " + wc.status());
        }
        if (r.pendingWrs == 0) {
            release(r);
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
        if (!announced) {
            announceConnect(req);
        }
        if (state != State.LIVE) {
            release(r);
            return;
        }
        if (connectPhase && !connectPhaseEnds(req)) {
            release(r);
            return;
        }
        // the receive buffer is free again before the response goes out (the host may send at once)
        if (r.recvSlot >= 0) {
            int s = r.recvSlot;
            r.recvSlot = -1;
            if (!postReceive(s)) {
                release(r);
                return;
            }
        }
        if (r.invalidateKey) {
            // the key in both fields: rdma-core's siw provider reads it from wr.rdma.rkey (seen in interop/)
            r.send.opcode(SendOpcode.SEND_WITH_INVALIDATE).invalidateRkey(r.remoteKey).rkey(r.remoteKey);
        } else {
            r.send.opcode(SendOpcode.SEND).invalidateRkey(0).rkey(0);
        }
        boolean dataOut = req.dataDirection() == DataDirection.CONTROLLER_TO_HOST && r.transferLength > 0
                && r.bufferOffset >= 0 && req.statusField() == 0;
        try {
            if (dataOut) {
                r.to(RdmaRequestState.TRANSFERRING_CONTROLLER_TO_HOST);
                r.data.opcode(SendOpcode.RDMA_WRITE).local(group.poolRegion(), r.bufferOffset, r.transferLength)
                        .remote(r.remoteAddress, r.remoteKey).next(r.send);
                qp.postSend(r.data);
                r.pendingWrs = 2;
                outstandingWrs += 2;
            } else {
                r.to(RdmaRequestState.COMPLETING);
                qp.postSend(r.send);
                r.pendingWrs = 1;
                outstandingWrs++;
            }
        } catch (VerbsException e) {
            LOG.log(Level.WARNING, "{0}: posting the response failed: {1}", this, e.getMessage());
            release(r);
            beginTeardown("posting a response failed");
        }
    }

    /**
     * The response of a request in the Connect phase is about to go out: on success the queue gets its full depth
     * (receives posted before the response); on failure the full completion-queue room is given back. False when
     * the queue could not grow (it is then closing).
     */
    private boolean connectPhaseEnds(Request req) {
        if (sq.controller() != null) {
            connectPhase = false;
            group.leaveUnconnected(slot);
            if (!growAfterConnect()) {
                beginTeardown("no resources for the connected queue");
                return false;
            }
        } else if (fullRoomReserved) {
            group.resizeReservation(slot, completionQueueNeeds(Math.min(CONNECT_RECEIVES, recvEntries)));
            fullRoomReserved = false;
        }
        return true;
    }

    boolean connectPhase() {
        return connectPhase;
    }

    /**
     * Ends the connection of a peer that broke a rule or a limit: logged once per connection (rate-limited over
     * the transport, no stack trace), counted in {@code nvmf4j_rejected_total{reason}}.
     */
    void reject(RejectReason reason, String detail) {
        if (!rejectionReported) {
            rejectionReported = true;
            group.reportRejected(reason, this + ": " + detail);
        }
        beginTeardown(detail);
    }

    /** Poll thread, every housekeeping round: the connect timeout and the RDMA Read timeout. */
    void checkTimeouts(long now, long connectTimeoutNanos, long readTimeoutNanos) {
        if (state != State.LIVE) {
            return;
        }
        if (connectPhase && now - acceptedNanos > connectTimeoutNanos) {
            reject(RejectReason.CONNECT_TIMEOUT, "no successful Connect within "
                    + connectTimeoutNanos / 1_000_000 + " ms");
            return;
        }
        for (RdmaRequest r : requests) {
            if (r != null && r.state == RdmaRequestState.TRANSFERRING_HOST_TO_CONTROLLER
                    && now - r.readPostedNanos > readTimeoutNanos) {
                reject(RejectReason.READ_TIMEOUT, "RDMA Read of " + r.transferLength
                        + " bytes not answered within " + readTimeoutNanos / 1_000_000 + " ms");
                return;
            }
        }
    }

    private boolean postReceive(int recvSlot) {
        try {
            qp.postReceive(recvs[recvSlot]);
            outstandingWrs++;
            return true;
        } catch (VerbsException e) {
            LOG.log(Level.WARNING, "{0}: posting a receive failed: {1}", this, e.getMessage());
            beginTeardown("posting a receive failed");
            return false;
        }
    }

    private void announceConnect(Request req) {
        if (announced) {
            return;
        }
        Controller c = sq.controller();
        if (c != null) {
            announced = true;
            LOG.log(Level.INFO, "host {0} connected to {1}: controller {2}, queue {3}, from {4}", c.hostNqn(),
                    c.subsystem().nqn(), c.id(), hostQid, address(remote));
            group.observer().queueConnected(c.subsystem().nqn().value(), hostQid);
        } else if (req.statusField() != 0) {
            if (!rejectionReported) {
                rejectionReported = true;
                group.reportRejected(RejectReason.CONNECT_REFUSED, "Connect on queue " + hostQid + " from "
                        + address(remote) + " refused: " + StatusCode.describe(req.status(), true)
                        + (req.refusal() == null ? "" : " (" + req.refusal() + ")"));
            } else {
                group.observer().peerRejected(RejectReason.CONNECT_REFUSED);
            }
        }
    }

    /** Releases a request: buffer back to the pool, context back to the free list, waiters retried. */
    void release(RdmaRequest r) {
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
        freeStack[freeTop++] = r.index;
        if (r.quotaBytes != 0) {
            bufferBytesHeld -= r.quotaBytes;
            r.quotaBytes = 0;
            if (quotaHead != null) {
                serveQuotaWaiters();
            }
        }
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
    void beginTeardown(String reason) {
        if (state != State.LIVE) {
            return;
        }
        state = State.DISCONNECTING;
        teardownDeadlineNanos = System.nanoTime() + 5_000_000_000L;
        Controller c = sq.controller();
        LOG.log(c == null ? Level.DEBUG : Level.INFO, "{0}: closing ({1})", this, reason);
        if (announced) {
            group.observer().queueDisconnected(c == null ? "" : c.subsystem().nqn().value(), hostQid);
        }
        RdmaConnection conn = connection;
        if (conn != null) {
            conn.disconnect();
        } else if (qp != null) {
            qp.close();
        }
        group.dropWaiters(this);
        dropQuotaWaiters();
        sq.destroy();
        // with the connection down, an AER parked in the core is never answered: its context is reclaimed at release
        releaseIfQuiet();
    }

    /** True once every posted work request has completed (flushed). */
    boolean quiet() {
        return outstandingWrs <= 0;
    }

    boolean teardownOverdue(long nowNanos) {
        return state == State.DISCONNECTING && nowNanos - teardownDeadlineNanos > 0;
    }

    void releaseIfQuiet() {
        if (state == State.DISCONNECTING && quiet()) {
            releaseResources();
        }
    }

    /** Frees everything (also used when flushes never came, or the poll group shuts down). */
    void releaseResources() {
        if (state == State.RELEASED) {
            return;
        }
        if (state == State.LIVE) {
            beginTeardown("shutting down");
            if (state == State.RELEASED) {
                return;
            }
        }
        state = State.RELEASED;
        RdmaConnection conn = connection;
        if (conn != null) {
            conn.close();
        } else if (qp != null) {
            qp.close();
        }
        for (RdmaRequest r : requests) {
            if (r != null && r.bufferOffset >= 0) {
                group.freeBuffer(r);
            }
        }
        closeMemory();
        group.unregister(this);
        LOG.log(Level.DEBUG, "{0}: released", this);
    }

    /** Frees memory of a queue whose accept failed (its queue pair was never handed to us or is closed). */
    void abandon() {
        state = State.RELEASED;
        sq.destroy();
        closeMemory();
    }

    private void closeMemory() {
        for (MemoryRegion r : new MemoryRegion[] {region, fullRegion}) {
            if (r == null) {
                continue;
            }
            try {
                r.close();
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "{0}: deregistration: {1}", this, e.getMessage());
            }
        }
        arena.close();
        if (fullArena != null) {
            fullArena.close();
        }
    }

    private static String address(InetSocketAddress a) {
        return a == null ? "?" : a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    @Override
    public String toString() {
        Controller c = sq == null ? null : sq.controller();
        return "rdma queue " + hostQid + (c == null ? "" : " of controller " + c.id()) + " from " + address(remote);
    }
}
