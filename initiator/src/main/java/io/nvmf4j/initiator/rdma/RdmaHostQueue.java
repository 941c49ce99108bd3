package io.nvmf4j.initiator.rdma;

import io.nvmf4j.initiator.ControllerLostException;
import io.nvmf4j.initiator.NvmfConnectException;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.initiator.NvmfTimeoutException;
import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.QueueLimits;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.rdma.RdmaCmAccept;
import io.nvmf4j.protocol.rdma.RdmaCmReject;
import io.nvmf4j.protocol.rdma.RdmaCmRequest;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectionRejectedException;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePair;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One NVMe queue over one RDMA reliable connection: the host half of the NVMe/RDMA transport binding, mirroring
 * Linux {@code drivers/nvme/host/rdma.c} ({@code struct nvme_rdma_queue}).
 *
 * <ul>
 *   <li>Connection setup ({@code nvme_rdma_route_resolved()}): the 32-byte NVMe RDMA CM request (RECFMT 0, QID,
 *       HRQSIZE, HSQSIZE) as private data; a reject is decoded into its {@code NVME_RDMA_CM_*} status; the accept's
 *       CRQSIZE bounds the queue depth. Receives for every response are posted before the request goes out.</li>
 *   <li>Request slots ({@code struct nvme_rdma_request}): one per tag, each with its 64-byte SQE in one registered
 *       region and a reusable two-SGE send work request (SQE + in-capsule data). Commands need a free tag and, on
 *       the copy path, a free bounce buffer; otherwise they wait in FIFO order (back-pressure: never more than
 *       {@code queueSize - 1} outstanding, the SQSIZE the Connect announced).</li>
 *   <li>Data mapping ({@code nvme_rdma_map_data()}): no data gives a null keyed SGL ({@code nvme_rdma_set_sg_null});
 *       a write that fits the in-capsule size of an I/O queue goes inline after the SQE with a data block
 *       descriptor of offset 0 ({@code nvme_rdma_map_sg_inline}); everything else is a keyed SGL naming exactly
 *       the command's bytes, for the command's life only ({@code nvme_rdma_map_sg_fr}: see "Exposure" below).</li>
 *   <li>Exposure (issue 13, F6): the bounce buffers and callers' buffers are registered for local access and
 *       window binding only, never for remote access. Each slot owns a {@link MemoryWindow}; a keyed command binds
 *       it to exactly its bytes (bounce-buffer slice or the caller's range) with only the right it needs (remote
 *       write for data to the host, remote read for data to the controller) under a fresh key, like Linux's fast
 *       registration per request. The keyed SGL asks for remote invalidation (subtype Fh, NVMe-oF 1.1, 7.3.2)
 *       when the provider lets a peer end the window, so the target answers with Send with Invalidate; a response
 *       that invalidated another key is a protocol error ("Bogus remote invalidation" in
 *       {@code nvme_rdma_process_nvme_rsp()}); a response that invalidated nothing makes the host invalidate
 *       locally ({@code nvme_rdma_inv_rkey()}) before the command completes or its bounce buffer is copied out.
 *       A target touching bytes outside the window, with another command's key, or after the response gets a
 *       remote access error, and the queue fails.</li>
 *   <li>Completion ({@code nvme_rdma_recv_done()}, {@code nvme_rdma_send_done()}): a command finishes when both its
 *       send completion and its response capsule have arrived, since the SQE buffer may be reused only then.</li>
 *   <li>One completion thread per queue busy-polls the CQ ({@code Thread.onSpinWait}) for the configured spin
 *       budget, then blocks; it also expires commands past their deadline (checked every 20 ms). Completion
 *       callbacks run on it.</li>
 *   <li>Data path without allocation or hand-off: a command takes its slot, SQE, SGL1 and send work request under
 *       the lock (all preallocated per tag, written in place), and is posted after the lock is released, so a
 *       post that writes to a socket never holds up the completion thread. A command submitted on the completion
 *       thread itself (a handler resubmitting) is posted right there, stamped with the loop's clock reading: no
 *       queue, no wake-up, no clock read.</li>
 * </ul>
 */
public final class RdmaHostQueue implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RdmaHostQueue.class.getName());

    /** Response capsule size: a bare CQE (IORCSZ 1, Linux posts receives of sizeof(struct nvme_completion)). */
    public static final int RESPONSE_SIZE = CompletionQueueEntry.SIZE;
    private static final long RECV_FLAG = 1L << 32;
    private static final long TIMEOUT_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /**
     * Linux siw (6.1, siw_accept()) puts its MPA reply on the wire before it hooks the socket's data_ready up to
     * the queue pair: an FPDU that arrives in between stays unread in the kernel socket until more data comes. Our
     * Connect capsule, sent as soon as the MPA reply is in, can land there (seen under QEMU TCG against nvmet-rdma:
     * the kernel never RDMA-Reads the Connect data). While a connection has not yet delivered a single response,
     * a command silent for this long is followed by a zero-length RDMA Write (siw's own RTR form: STag 1, TO 0,
     * which siw and RFC 5040 peers accept without an STag check and without a completion at the peer): new data
     * makes the peer read its socket again.
     */
    private static final long NUDGE_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);
    private static final long NUDGE_WR_ID = 0xFFFF_FFFFL; // low 32 bits -1: never a command tag, no RECV_FLAG
    /**
     * Times a command is sent again after the connection failed under it, then it fails: Linux's nvme_max_retries
     * (5) in {@code nvme_decide_disposition()}. Without a bound, a target that breaks the connection on one
     * command (e.g. by touching memory outside it) would have it retried after every reconnect, for ever.
     */
    static final int MAX_RETRIES = 5;

    private enum State { DOWN, CONNECTING, LIVE, CLOSED }

    /** A window's right for a command whose data goes to the host (Read, Identify): the target RDMA-Writes it. */
    private static final Set<AccessFlag> CONTROLLER_WRITES = EnumSet.of(AccessFlag.REMOTE_WRITE);
    /** A window's right for a command whose data goes to the controller (Write): the target RDMA-Reads it. */
    private static final Set<AccessFlag> CONTROLLER_READS = EnumSet.of(AccessFlag.REMOTE_READ);
    /** Memory the host owns: local access and window binding, never remote access of its own. */
    static final Set<AccessFlag> HOST_BUFFER_ACCESS = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND);
    /** {@link #tryStart} outcomes. */
    private static final int STARTED = 1;
    private static final int NO_ROOM = 0;
    private static final int START_FAILED = -1;

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
    private final MemoryRegion sqeRegion;
    private final MemoryRegion recvRegion;
    private final MemoryRegion poolRegion;
    private final int bufferSize;
    private final int[] freeBuffers;
    private int freeBufferCount;
    private final int[] slotBuffer;
    /** One memory window per slot, bound to the slot's command's bytes while it is keyed and outstanding. */
    private final MemoryWindow[] windows;
    /** Whether the slot's window is bound for its current command (a keyed SGL went out with its key). */
    private final boolean[] slotKeyed;

    private final CommandIdAllocator ids;
    private final HostCommand[] slotCommand;
    private final boolean[] sendDone;
    private final boolean[] responseDone;
    private final int[] responseStatus;
    private final long[] responseResult;
    private final SubmissionQueueEntry[] sqes;
    /** Views of the response buffers, made once (their accessors allocate nothing). */
    private final CompletionQueueEntry[] responses;
    /** Tags the completion thread started under the lock and posts after releasing it. */
    private final int[] pollerPostTags;
    private final HostCommand[] pollerPostCommands;
    /** The completion thread's time at the top of its current loop iteration (read only by that thread). */
    private long loopNanos;
    private final SendWorkRequest[] sends;
    private final ReceiveWorkRequest[] receives;
    private final ArrayDeque<HostCommand> pending = new ArrayDeque<>();

    /** Finished commands collected under the lock and called back outside it. */
    private final HostCommand[] doneCommands;
    private final int[] doneStatus;
    private final long[] doneResult;
    private int doneCount;

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
    private final SendWorkRequest nudge = new SendWorkRequest(1).opcode(SendOpcode.RDMA_WRITE).signaled(true)
            .wrId(NUDGE_WR_ID).rkey(1).remoteAddress(0);
    private boolean responseSeen;
    private long nextNudgeNanos;
    private int nudgesSent;

    /**
     * Allocates the queue's registered memory (SQEs, response buffers, bounce buffers); nothing is sent until
     * {@link #connect}.
     *
     * @param queueSize       entries: HRQSIZE of the CM request; at most queueSize - 1 commands are outstanding
     * @param bufferSize      bytes per bounce buffer
     * @param buffers         bounce buffers
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
        this.bufferSize = bufferSize;
        this.failureListener = failureListener;
        this.commandTimeoutNanos = commandTimeout.toNanos();
        this.spinNanos = spinBudget.toNanos();
        this.maxOutstanding = queueSize - 1;
        boolean ok = false;
        MemoryRegion sq = null;
        MemoryRegion rq = null;
        MemoryRegion pool = null;
        MemoryWindow[] mws = new MemoryWindow[queueSize];
        try {
            sq = pd.register(arena.allocate((long) queueSize * SubmissionQueueEntry.SIZE, 64),
                    EnumSet.of(AccessFlag.LOCAL_WRITE));
            rq = pd.register(arena.allocate((long) queueSize * RESPONSE_SIZE, 64), EnumSet.of(AccessFlag.LOCAL_WRITE));
            pool = pd.register(arena.allocate((long) bufferSize * buffers, 4096), HOST_BUFFER_ACCESS);
            for (int i = 0; i < queueSize; i++) {
                mws[i] = pd.allocateWindow();
            }
            ok = true;
        } finally {
            if (!ok) {
                for (MemoryWindow mw : mws) {
                    if (mw != null) {
                        mw.close();
                    }
                }
                if (pool != null) {
                    pool.close();
                }
                if (sq != null) {
                    sq.close();
                }
                if (rq != null) {
                    rq.close();
                }
                arena.close();
            }
        }
        this.sqeRegion = sq;
        this.recvRegion = rq;
        this.poolRegion = pool;
        this.windows = mws;
        this.slotKeyed = new boolean[queueSize];
        this.freeBuffers = new int[buffers];
        for (int i = 0; i < buffers; i++) {
            freeBuffers[i] = buffers - 1 - i;
        }
        this.freeBufferCount = buffers;
        this.ids = new CommandIdAllocator(queueSize);
        this.slotCommand = new HostCommand[queueSize];
        this.slotBuffer = new int[queueSize];
        this.sendDone = new boolean[queueSize];
        this.responseDone = new boolean[queueSize];
        this.responseStatus = new int[queueSize];
        this.responseResult = new long[queueSize];
        this.sqes = new SubmissionQueueEntry[queueSize];
        this.responses = new CompletionQueueEntry[queueSize];
        this.pollerPostTags = new int[queueSize];
        this.pollerPostCommands = new HostCommand[queueSize];
        this.sends = new SendWorkRequest[queueSize];
        this.receives = new ReceiveWorkRequest[queueSize];
        this.doneCommands = new HostCommand[queueSize];
        this.doneStatus = new int[queueSize];
        this.doneResult = new long[queueSize];
        this.scratchCommands = new HostCommand[queueSize];
        this.scratchStatus = new int[queueSize];
        this.scratchResult = new long[queueSize];
        for (int i = 0; i < queueSize; i++) {
            sqes[i] = SubmissionQueueEntry.wrap(sqeRegion.segment().asSlice((long) i * SubmissionQueueEntry.SIZE,
                    SubmissionQueueEntry.SIZE));
            sends[i] = new SendWorkRequest(2).opcode(SendOpcode.SEND).signaled(true).wrId(i);
            responses[i] = CompletionQueueEntry.wrap(recvRegion.segment().asSlice((long) i * RESPONSE_SIZE, RESPONSE_SIZE));
            receives[i] = new ReceiveWorkRequest(1).wrId(RECV_FLAG | i).local(recvRegion, (long) i * RESPONSE_SIZE,
                    RESPONSE_SIZE);
            slotBuffer[i] = -1;
        }
    }

    public String name() {
        return name;
    }

    public QueueId qid() {
        return qid;
    }

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
        this.inCapsuleCapacity = Math.max(0, Math.min(bytes, bufferSize));
    }

    public int bufferSize() {
        return bufferSize;
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
        RdmaCmRequest request = RdmaCmRequest.of(qid, queueSize, sqsize);
        CompletionQueue newCq = null;
        RdmaConnection conn;
        try {
            newCq = device.createCompletionQueue(queueSize * 2 + 4);
            int ird = Math.max(1, Math.min(16, device.attributes().maxQpRdAtom()));
            QueuePairAttributes attributes = new QueuePairAttributes(queueSize + 1, queueSize, 2, 1, 0, ird,
                    Math.max(1, Math.min(16, device.attributes().maxQpInitRdAtom())));
            ConnectParams params = new ConnectParams(pd, newCq, newCq, attributes, request.toBytes(),
                    this::postAllReceives);
            conn = device.connectionManager().connect(address, params, timeout);
        } catch (ConnectionRejectedException e) {
            closeQuietly(newCq);
            throw new NvmfConnectException(name + ": " + address + " rejected the connection: " + rejectReason(e), e);
        } catch (VerbsException e) {
            closeQuietly(newCq);
            String why = e.code() == VerbsErrorCode.TIMED_OUT
                    ? "no answer within " + timeout.toMillis() + " ms"
                    : e.getMessage();
            throw new NvmfConnectException(name + ": cannot connect to " + address + ": " + why, e);
        }
        int crqsize = queueSize;
        byte[] accept = conn.peerPrivateData();
        if (accept.length >= RdmaCmAccept.SIZE) {
            try {
                crqsize = RdmaCmAccept.decode(MemorySegment.ofArray(accept)).crqsize();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, name + ": ignoring malformed RDMA CM accept private data: " + e.getMessage());
            }
        }
        lock.lock();
        try {
            connection = conn;
            cq = newCq;
            maxOutstanding = Math.max(1, Math.min(queueSize, crqsize) - 1);
            failureReason = null;
            responseSeen = false;
            nextNudgeNanos = 0;
            state = State.CONNECTING;
            int generation = ++connectionGeneration;
            pollerRunning = true;
            poller = Thread.ofPlatform().daemon().name("nvmf4j-" + name).unstarted(() -> pollLoop(generation));
            poller.start();
        } finally {
            lock.unlock();
        }
        int generation = connectionGeneration;
        conn.onDisconnect(event -> connectionFailed(generation,
                "connection ended: " + event.cause() + " " + event.detail()));
    }

    /** Names the reject status like Linux {@code nvme_rdma_cm_msg()}: "NVME_RDMA_CM_INVALID_HSQSIZE (4): ...". */
    static String rejectReason(ConnectionRejectedException e) {
        byte[] data = e.privateData();
        if (data.length >= RdmaCmReject.SIZE) {
            try {
                RdmaCmReject reject = RdmaCmReject.decode(MemorySegment.ofArray(data));
                return reject.status()
                        .map(s -> "NVME_RDMA_CM_" + s.name() + " (status " + s.value() + ", " + s.message() + ")")
                        .orElse("NVMe RDMA CM status " + reject.sts() + " (unknown)");
            } catch (RuntimeException malformed) {
                return e.getMessage() + " (malformed reject private data)";
            }
        }
        return e.getMessage();
    }

    private void postAllReceives(QueuePair qp) throws VerbsException {
        for (int i = 0; i < queueSize; i++) {
            qp.postReceive(receives[i]);
        }
    }

    /** Lets queued commands go out: the queue's own Connect has succeeded. */
    public void markLive() {
        int[] tags = new int[queueSize];
        HostCommand[] commands = new HostCommand[queueSize];
        int count = 0;
        QueuePair qp = null;
        int generation = 0;
        boolean onPoller = Thread.currentThread() == poller;
        lock.lock();
        try {
            if (state == State.CONNECTING) {
                state = State.LIVE;
                count = drainPending(tags, commands, onPoller);
                qp = connection.queuePair();
                generation = connectionGeneration;
            }
        } finally {
            lock.unlock();
        }
        postAll(qp, generation, tags, commands, count);
        if (!onPoller) {
            runCallbacks();
        }
    }

    /**
     * Queues a command. It goes out at once when the queue is live and has a free slot (and bounce buffer if it
     * needs one), otherwise it waits; while the connection is being re-established it waits for that.
     */
    public void submit(HostCommand command) {
        NvmfException failure = null;
        QueuePair qp = null;
        int generation = 0;
        int tag = -1;
        boolean startFailed = false;
        // The completion thread (e.g. a handler resubmitting) uses its loop time instead of reading the clock.
        boolean onPoller = Thread.currentThread() == poller;
        command.retries = 0;
        lock.lock();
        try {
            if (state == State.CLOSED) {
                failure = new ControllerLostException(name + ": queue is closed; " + command.describe() + " not sent");
            } else if (state == State.LIVE && pending.isEmpty()) {
                int started = tryStart(command, onPoller);
                if (started == STARTED) {
                    qp = connection.queuePair();
                    generation = connectionGeneration;
                    tag = command.tag; // read under the lock: a failure may reset command.tag before the post
                } else if (started == NO_ROOM) {
                    pending.addLast(command);
                } else {
                    startFailed = true;
                }
            } else {
                pending.addLast(command);
            }
        } finally {
            lock.unlock();
        }
        if (qp != null) {
            post(qp, generation, tag, command);
        }
        if (failure != null) {
            command.failed(failure);
        }
        if (startFailed) {
            runCallbacks();
        }
    }

    /** Sends a command of the connect sequence while the queue is CONNECTING (fails it if the queue is down). */
    public void submitInit(HostCommand command) {
        NvmfException failure = null;
        QueuePair qp = null;
        int generation = 0;
        int tag = -1;
        boolean startFailed = false;
        boolean onPoller = Thread.currentThread() == poller;
        command.retries = 0;
        lock.lock();
        try {
            if (state == State.CONNECTING || state == State.LIVE) {
                int started = tryStart(command, onPoller);
                if (started == STARTED) {
                    qp = connection.queuePair();
                    generation = connectionGeneration;
                    tag = command.tag; // read under the lock: a failure may reset command.tag before the post
                } else if (started == NO_ROOM) {
                    pending.addFirst(command);
                } else {
                    startFailed = true;
                }
            } else {
                failure = new ControllerLostException(name + ": not connected; " + command.describe() + " not sent");
            }
        } finally {
            lock.unlock();
        }
        if (qp != null) {
            post(qp, generation, tag, command);
        }
        if (failure != null) {
            command.failed(failure);
        }
        if (startFailed) {
            runCallbacks();
        }
    }

    /**
     * Posts the send of a command started under the lock, after releasing it: a post may write to a socket (a
     * software provider) and must never be made while holding the lock the completion thread needs. If the
     * connection failed in between, the command has already been re-queued and the post goes to a queue pair in
     * error (flushed) or fails (ignored below).
     */
    private void post(QueuePair qp, int generation, int tag, HostCommand command) {
        try {
            qp.postSend(sends[tag]);
        } catch (VerbsException | RuntimeException e) {
            postFailed(generation, tag, command, e.getMessage());
        }
    }

    private void postAll(QueuePair qp, int generation, int[] tags, HostCommand[] commands, int count) {
        for (int i = 0; i < count; i++) {
            HostCommand command = commands[i];
            commands[i] = null;
            post(qp, generation, tags[i], command);
        }
    }

    /** The slot goes back; the command waits for the reconnect (or fails if it may not be retried). */
    private void postFailed(int generation, int tag, HostCommand command, String why) {
        boolean first = false;
        String reason = null;
        lock.lock();
        try {
            if (generation == connectionGeneration && ids.isOutstanding(tag) && slotCommand[tag] == command) {
                releaseSlot(tag);
                command.tag = -1;
                pending.addFirst(command);
                first = markFailed(name + ": post send failed: " + why);
                reason = failureReason;
            }
        } finally {
            lock.unlock();
        }
        if (Thread.currentThread() != poller) {
            runCallbacks();
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
            return ids.outstanding();
        } finally {
            lock.unlock();
        }
    }

    /** Decides the SGL1 form of a command, as nvme_rdma_map_data() does. */
    static SglForm sglForm(HostCommand.Direction direction, int length, int inCapsuleCapacity) {
        if (direction == HostCommand.Direction.NONE || length == 0) {
            return SglForm.NULL_KEYED;
        }
        if (direction == HostCommand.Direction.HOST_TO_CONTROLLER && length <= inCapsuleCapacity) {
            return SglForm.IN_CAPSULE;
        }
        return SglForm.KEYED;
    }

    /** The three SGL1 forms the host sends. */
    enum SglForm { NULL_KEYED, IN_CAPSULE, KEYED }

    // ---- under the lock -------------------------------------------------------------------------------------

    /**
     * Takes a slot (and bounce buffer), binds the slot's window for a keyed command, and writes the SQE, SGL1 and
     * send work request; the caller posts it after releasing the lock ({@link #post}). {@link #NO_ROOM} when no
     * slot or buffer is free; {@link #START_FAILED} when the window cannot be bound (e.g. the caller closed its
     * buffer): the command's failure is then queued for {@link #runCallbacks}.
     */
    private int tryStart(HostCommand command, boolean onPoller) {
        if (ids.outstanding() >= maxOutstanding) {
            return NO_ROOM;
        }
        boolean needsBuffer = command.direction != HostCommand.Direction.NONE && command.length > 0
                && command.region == null;
        if (needsBuffer && command.length > bufferSize) {
            throw new IllegalArgumentException(command.describe() + ": " + command.length
                    + " bytes exceed the bounce buffer size " + bufferSize + " (split the transfer)");
        }
        if (needsBuffer && freeBufferCount == 0) {
            return NO_ROOM;
        }
        int tag = ids.acquire();
        int buffer = needsBuffer ? freeBuffers[--freeBufferCount] : -1;
        slotBuffer[tag] = buffer;
        slotCommand[tag] = command;
        sendDone[tag] = false;
        responseDone[tag] = false;
        command.tag = tag;
        command.startNanos = onPoller ? loopNanos : System.nanoTime();

        SubmissionQueueEntry sqe = sqes[tag];
        MemorySegment sqeBytes = sqe.segment();
        sqe.clear();
        command.encode(sqe);
        sqe.cid(ids.commandId(tag)).psdt(SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS);

        MemoryRegion dataRegion = command.region;
        long dataOffset = command.regionOffset;
        if (buffer >= 0) {
            dataRegion = poolRegion;
            dataOffset = (long) buffer * bufferSize;
            if (command.direction == HostCommand.Direction.HOST_TO_CONTROLLER) {
                MemorySegment.copy(command.copy, 0, poolRegion.segment(), dataOffset, command.length);
            }
        }
        SendWorkRequest send = sends[tag];
        send.sgList().get(0).set(sqeRegion, (long) tag * SubmissionQueueEntry.SIZE, SubmissionQueueEntry.SIZE);
        switch (sglForm(command.direction, command.length, qid.isAdmin() ? 0 : inCapsuleCapacity)) {
            case NULL_KEYED -> {
                Sgl1Encoder.nullKeyed(sqeBytes);
                send.sgList().count(1);
            }
            case IN_CAPSULE -> {
                Sgl1Encoder.inCapsule(sqeBytes, 0, command.length);
                send.sgList().get(1).set(dataRegion, dataOffset, command.length);
                send.sgList().count(2);
            }
            case KEYED -> {
                MemoryWindow window = windows[tag];
                int rkey;
                try {
                    rkey = window.bind(dataRegion, dataOffset, command.length,
                            command.direction == HostCommand.Direction.CONTROLLER_TO_HOST
                                    ? CONTROLLER_WRITES : CONTROLLER_READS);
                } catch (VerbsException e) {
                    releaseSlot(tag);
                    command.tag = -1;
                    failLater(command, new NvmfException(name + ": " + command.describe()
                            + ": cannot expose its data buffer to the controller: " + e.getMessage(), e));
                    return START_FAILED;
                }
                slotKeyed[tag] = true;
                Sgl1Encoder.keyed(sqeBytes, dataRegion.address() + dataOffset, command.length, rkey,
                        window.remotelyInvalidatable());
                send.sgList().count(1);
            }
        }
        return STARTED;
    }

    /** Starts waiting commands while slots last; their tags go to {@code tags} for posting after the lock. */
    private int drainPending(int[] tags, HostCommand[] commands, boolean onPoller) {
        int count = 0;
        while (state == State.LIVE && !pending.isEmpty()) {
            HostCommand next = pending.pollFirst();
            int started = tryStart(next, onPoller);
            if (started == NO_ROOM) {
                pending.addFirst(next);
                break;
            }
            if (started == START_FAILED) {
                continue;
            }
            tags[count] = next.tag;
            commands[count++] = next;
        }
        return count;
    }

    private void releaseSlot(int tag) {
        if (slotKeyed[tag]) {
            // a command ending any way (failure, timeout, reconnect) takes its bytes out of the target's reach
            windows[tag].invalidate();
            slotKeyed[tag] = false;
        }
        int buffer = slotBuffer[tag];
        if (buffer >= 0) {
            freeBuffers[freeBufferCount++] = buffer;
            slotBuffer[tag] = -1;
        }
        slotCommand[tag] = null;
        ids.release(tag);
    }

    private void finish(int tag) {
        HostCommand command = slotCommand[tag];
        int buffer = slotBuffer[tag];
        if (buffer >= 0 && command.direction == HostCommand.Direction.CONTROLLER_TO_HOST
                && responseStatus[tag] == 0) {
            MemorySegment.copy(poolRegion.segment(), (long) buffer * bufferSize, command.copy, 0, command.length);
        }
        releaseSlot(tag);
        command.tag = -1;
        doneCommands[doneCount] = command;
        doneStatus[doneCount] = responseStatus[tag];
        doneResult[doneCount] = responseResult[tag];
        doneCount++;
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
            if (ids.isOutstanding(tag)) {
                HostCommand command = slotCommand[tag];
                releaseSlot(tag);
                command.tag = -1;
                if (command.retryAfterReconnect() && command.retries < MAX_RETRIES) {
                    command.retries++;
                    retry.addLast(command);
                } else {
                    failLater(command, new ControllerLostException(name + ": " + reason + "; "
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
                failLater(command, new ControllerLostException(name + ": " + reason + "; " + command.describe()
                        + " failed"));
            }
        }
        return true;
    }

    private final ArrayDeque<Object[]> failures = new ArrayDeque<>();

    private void failLater(HostCommand command, NvmfException error) {
        failures.add(new Object[] {command, error});
    }

    /** Scratch arrays of the completion thread, so that handing out completions allocates nothing. */
    private final HostCommand[] scratchCommands;
    private final int[] scratchStatus;
    private final long[] scratchResult;
    /** True while the completion thread runs handlers (read and written only by that thread). */
    private boolean inPollerCallbacks;

    /** Runs the callbacks collected under the lock, outside it (completions first, then failures). */
    private void runCallbacks() {
        boolean onPoller = Thread.currentThread() == poller;
        if (onPoller && inPollerCallbacks) {
            return; // re-entered from a handler: the scratch arrays are in use; the poll loop runs these next
        }
        int n;
        HostCommand[] cmds;
        int[] statuses;
        long[] results;
        Object[][] failed = null;
        lock.lock();
        try {
            n = doneCount;
            if (n == 0 && failures.isEmpty()) {
                return;
            }
            cmds = onPoller ? scratchCommands : new HostCommand[n];
            statuses = onPoller ? scratchStatus : new int[n];
            results = onPoller ? scratchResult : new long[n];
            System.arraycopy(doneCommands, 0, cmds, 0, n);
            System.arraycopy(doneStatus, 0, statuses, 0, n);
            System.arraycopy(doneResult, 0, results, 0, n);
            java.util.Arrays.fill(doneCommands, 0, n, null);
            doneCount = 0;
            if (!failures.isEmpty()) {
                failed = failures.toArray(new Object[0][]);
                failures.clear();
            }
        } finally {
            lock.unlock();
        }
        inPollerCallbacks = onPoller;
        try {
            for (int i = 0; i < n; i++) {
                HostCommand c = cmds[i];
                cmds[i] = null;
                try {
                    c.completed(statuses[i], results[i]);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, name + ": completion callback threw", e);
                }
            }
            if (failed != null) {
                for (Object[] f : failed) {
                    try {
                        ((HostCommand) f[0]).failed((NvmfException) f[1]);
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, name + ": failure callback threw", e);
                    }
                }
            }
        } finally {
            inPollerCallbacks = false;
        }
    }

    // ---- completion thread ----------------------------------------------------------------------------------

    private void pollLoop(int generation) {
        WorkCompletion[] wcs = new WorkCompletion[Math.min(32, queueSize * 2)];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        CompletionQueue myCq = cq;
        long nextTimeoutCheck = System.nanoTime() + TIMEOUT_CHECK_NANOS;
        while (pollerRunning && generation == connectionGeneration) {
            int n = myCq.poll(wcs);
            if (n == 0) {
                // Busy-poll for the spin budget (a wake-up costs far more than a polled round trip), then block.
                long spinUntil = System.nanoTime() + spinNanos;
                while (n == 0 && pollerRunning) {
                    Thread.onSpinWait();
                    n = myCq.poll(wcs);
                    if (n == 0 && System.nanoTime() - spinUntil >= 0) {
                        break;
                    }
                }
                if (n == 0) {
                    try {
                        n = myCq.await(wcs, 20, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException e) {
                        if (pollerRunning) {
                            connectionFailed("completion queue failed: " + e);
                        }
                        return;
                    }
                }
            }
            // One clock read per batch: it stamps the commands the handlers below resubmit on this thread.
            long now = System.nanoTime();
            loopNanos = now;
            if (n > 0) {
                process(wcs, n, generation);
            }
            if (now - nextTimeoutCheck >= 0) {
                nextTimeoutCheck = now + TIMEOUT_CHECK_NANOS;
                expireTimedOut(now);
                nudgeIfSilent(now);
            }
            runCallbacks();
        }
        runCallbacks();
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
                if ((wrId & RECV_FLAG) != 0) {
                    failure = onResponse((int) (wrId & 0xFFFF), wc.byteLength(), wc.withInvalidate(),
                            wc.invalidatedRkey());
                } else {
                    int tag = (int) wrId;
                    if (tag < 0 || tag >= queueSize || !ids.isOutstanding(tag)) {
                        continue; // a send completion for a slot already finished by an earlier failure
                    }
                    sendDone[tag] = true;
                    if (responseDone[tag]) {
                        finish(tag);
                    }
                }
            }
            if (failure == null) {
                toPost = drainPending(pollerPostTags, pollerPostCommands, true);
                qp = connection.queuePair();
            } else {
                markFailed(name + ": " + failure);
            }
        } finally {
            lock.unlock();
        }
        if (toPost > 0) {
            postAll(qp, generation, pollerPostTags, pollerPostCommands, toPost);
        }
        if (failure != null) {
            runCallbacks();
            failureListener.queueFailed(this, name + ": " + failure);
        }
    }

    /**
     * Parses one response capsule; returns a failure reason or null. {@code withInvalidate}: it came by Send with
     * Invalidate, which ended the window {@code invalidatedRkey} at the host.
     */
    private String onResponse(int index, int byteLength, boolean withInvalidate, int invalidatedRkey) {
        if (index >= queueSize) {
            return "receive completion for unknown buffer " + index;
        }
        if (byteLength < CompletionQueueEntry.SIZE) {
            return "response capsule of " + byteLength + " bytes, shorter than a CQE";
        }
        CompletionQueueEntry cqe = responses[index];
        int cid = cqe.cid();
        int statusField = cqe.statusField();
        long result = cqe.result();
        lastSqHead = cqe.sqHead();
        responseSeen = true;
        try {
            connection.queuePair().postReceive(receives[index]);
        } catch (VerbsException e) {
            return "re-posting a receive failed: " + e.getMessage();
        }
        int tag = ids.lookup(cid);
        if (tag < 0) {
            // nvme_rdma_process_nvme_rsp(): "tag not found" -> error recovery
            return String.format("completion for unknown command id %d (0x%04x)", cid, cid);
        }
        if (withInvalidate && (!slotKeyed[tag] || invalidatedRkey != windows[tag].rkey())) {
            // nvme_rdma_process_nvme_rsp(): "Bogus remote invalidation" -> error recovery. The window it ended
            // (another command's) is rebound when that command is sent again after the reconnect.
            return String.format("response to command id %d invalidated rkey 0x%08x, not the command's key%s",
                    cid, invalidatedRkey, slotKeyed[tag] ? String.format(" 0x%08x", windows[tag].rkey()) : "");
        }
        if (slotKeyed[tag]) {
            // The response ends the target's access to the command's bytes: if Send with Invalidate did not end
            // the window, end it here (nvme_rdma_inv_rkey()), before the command completes or its bounce buffer
            // is copied out. Synchronous: once this returns, the key is dead.
            windows[tag].invalidate();
            slotKeyed[tag] = false;
        }
        responseDone[tag] = true;
        responseStatus[tag] = statusField;
        responseResult[tag] = result;
        if (sendDone[tag]) {
            finish(tag);
        }
        return null;
    }

    /** See {@link #NUDGE_AFTER_NANOS}: at most one zero-length RDMA Write per second, only before any response. */
    private void nudgeIfSilent(long now) {
        lock.lock();
        try {
            if (responseSeen || state != State.CONNECTING || connection == null || now - nextNudgeNanos < 0) {
                return;
            }
            long oldestStart = Long.MAX_VALUE;
            for (int tag = 0; tag < queueSize; tag++) {
                if (ids.isOutstanding(tag)) {
                    oldestStart = Math.min(oldestStart, slotCommand[tag].startNanos);
                }
            }
            if (oldestStart == Long.MAX_VALUE || now - oldestStart < NUDGE_AFTER_NANOS) {
                return;
            }
            nextNudgeNanos = now + NUDGE_AFTER_NANOS;
            nudge.sgList().count(0);
            connection.queuePair().postSend(nudge);
            nudgesSent++;
            long silentMillis = TimeUnit.NANOSECONDS.toMillis(now - oldestStart);
            LOG.fine(() -> name + ": no response " + silentMillis + " ms after the first command; sent a zero-length RDMA Write to make the peer read its socket");
        } catch (VerbsException e) {
            LOG.fine(() -> name + ": zero-length RDMA Write not posted: " + e.getMessage());
        } finally {
            lock.unlock();
        }
    }

    /** Zero-length RDMA Writes sent because a new connection stayed silent (see {@link #NUDGE_AFTER_NANOS}). */
    public int nudgesSent() {
        lock.lock();
        try {
            return nudgesSent;
        } finally {
            lock.unlock();
        }
    }

    private void expireTimedOut(long now) {
        String failure = null;
        lock.lock();
        try {
            if (state != State.LIVE && state != State.CONNECTING) {
                return;
            }
            for (int tag = 0; tag < queueSize; tag++) {
                if (ids.isOutstanding(tag) && now - slotCommand[tag].startNanos > commandTimeoutNanos) {
                    HostCommand command = slotCommand[tag];
                    long ms = TimeUnit.NANOSECONDS.toMillis(commandTimeoutNanos);
                    // Like nvme_rdma_timeout(): the command fails and the whole controller is reset.
                    releaseSlot(tag);
                    command.tag = -1;
                    failLater(command, new NvmfTimeoutException(name + ": " + command.describe()
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
            runCallbacks();
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
        runCallbacks();
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
        runCallbacks();
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
        closeQuietly(oldCq);
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
        for (MemoryWindow window : windows) {
            window.close();
        }
        sqeRegion.close();
        recvRegion.close();
        poolRegion.close();
        arena.close();
    }

    /** Why the connection last failed, or null. */
    public String failureReason() {
        return failureReason;
    }

    private static void closeQuietly(CompletionQueue q) {
        if (q != null) {
            try {
                q.close();
            } catch (RuntimeException ignored) {
                // already broken
            }
        }
    }

    @Override
    public String toString() {
        return name + "[" + qid + ", size " + queueSize + ", " + state + "]";
    }
}
