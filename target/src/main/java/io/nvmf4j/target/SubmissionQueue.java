package io.nvmf4j.target;

import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.auth.DhchapKeys;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The target side of one queue (nvmet's {@code struct nvmet_sq} plus {@code nvmet_req_init()} and
 * {@code nvmet_req_complete()} of core.c). Created unbound by {@link NvmeTarget#createQueue}; the Connect command
 * binds it to a controller and gives it its QID and size.
 *
 * <p>Threading: {@link #prepare} and {@link #execute} are called by the one thread that owns the transport queue
 * (its poll group). Completions of deferred requests (Asynchronous Event Requests) and controller teardown may
 * happen on other threads; the SQ head update is atomic for that reason. Authentication Send/Receive of a host with
 * a key are deferred too: computed on the target's authentication executor, completed back on the queue's thread
 * ({@link TransportQueue#runOnQueueThread}); {@link #destroy()} answers one still in flight.
 */
public final class SubmissionQueue {

    private static final System.Logger LOG = System.getLogger(SubmissionQueue.class.getName());
    private static final VarHandle SQ_HEAD;

    static {
        try {
            SQ_HEAD = MethodHandles.lookup().findVarHandle(SubmissionQueue.class, "sqHead", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final NvmeTarget target;
    private final Port port;
    private final TransportQueue transport;
    private volatile Controller controller;
    private volatile int qid;
    private volatile int size;
    private volatile int sqHead;
    private volatile boolean destroyed;
    /** Set once by the queue's Connect, before its completion; read on the poll thread. */
    private volatile boolean sqFlowControlDisabled;
    /** SQHD of every completion of a queue without SQ flow control (TP 8005). */
    static final int SQHD_DISABLED = 0xFFFF;
    /** DH-HMAC-CHAP state of this queue; null while its host needs none and has sent no Authentication Send. */
    private volatile QueueAuthentication authentication;

    SubmissionQueue(NvmeTarget target, Port port, TransportQueue transport) {
        this.target = target;
        this.port = port;
        this.transport = transport;
    }

    public NvmeTarget target() {
        return target;
    }

    public Port port() {
        return port;
    }

    public TransportQueue transport() {
        return transport;
    }

    /** The controller after a successful Connect, else null. */
    public Controller controller() {
        return controller;
    }

    public QueueId qid() {
        return QueueId.of(qid);
    }

    /** The QID as an int (0 before Connect), without a {@link QueueId} per call: for the data path. */
    public int qidValue() {
        return qid;
    }

    /** Entries in this queue (Connect SQSIZE + 1), 0 before Connect. */
    public int size() {
        return size;
    }

    /**
     * Parses the command in {@code request} (nvmet_req_init()): rejects fused commands and PRPs, sends a queue
     * without a controller to the Connect parser, others to the admin or I/O parser, which resolve the namespace
     * and set the handler, data direction and expected length. Returns false when the command failed here; it has
     * then already been completed through {@link TransportQueue#queueResponse}.
     */
    public boolean prepare(Request request) {
        request.sq = this;
        SubmissionQueueEntry sqe = request.sqe();
        Status status;
        if (sqe.fuse() != 0) {
            // no support for fused commands, like nvmet
            request.errorLocation(SubmissionQueueEntry.OFFSET_FLAGS);
            status = StatusCode.INVALID_FIELD.withDnr();
        } else if (sqe.psdt() != SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS) {
            // NVMe-oF 1.1, 2.1: PSDT must say "SGL, MPTR is a contiguous buffer"
            request.errorLocation(SubmissionQueueEntry.OFFSET_FLAGS);
            status = StatusCode.INVALID_FIELD.withDnr();
        } else if (controller == null) {
            status = FabricsCommands.parseConnect(request);
        } else if (!authenticationPermits(sqe)) {
            // nvmet_check_auth_status(): a host with a key must authenticate this queue before anything else
            // (no error location, as nvmet: no error log entry for each refused command)
            status = StatusCode.AUTH_REQUIRED.withDnr();
        } else if (qid != 0) {
            status = IoCommands.parse(request);
        } else {
            status = AdminCommands.parse(request);
        }
        if (!status.isSuccess()) {
            complete(request, status);
            return false;
        }
        Controller c = controller;
        if (c != null) {
            c.keepAliveTraffic();
        }
        return true;
    }

    /**
     * Runs a prepared request to completion on the calling thread, except an Asynchronous Event Request, which
     * waits for an event. Nothing thrown by a handler reaches the transport: it becomes Internal Error.
     */
    public void execute(Request request) {
        Status status;
        request.executing();
        try {
            status = request.handler.execute(request);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "command " + request.sqe() + " failed unexpectedly", e);
            request.errorLocation(SubmissionQueueEntry.OFFSET_OPCODE);
            status = StatusCode.INTERNAL.withDnr();
        }
        if (status == null) {
            if (request.state() != ExecutionState.EXECUTING) {
                return; // waiting (backend, event, authentication step), or already answered by what it waited for
            }
            // a handler bug: no status and nothing that will ever give one; the host must not wait forever
            LOG.log(Level.ERROR, "command {0}: its handler gave no status and left it waiting for nothing",
                    request.sqe());
            request.errorLocation(SubmissionQueueEntry.OFFSET_OPCODE);
            status = StatusCode.INTERNAL.withDnr();
        }
        complete(request, status);
    }

    /**
     * Fills the CQE and hands the request to the transport (__nvmet_req_complete()): SQ head (advanced per
     * completed command, nvmet_update_sq_head()), SQ ID, CID, and the status; a failure with a parameter location
     * goes into the controller's error log and gets the More bit (nvmet_set_error()).
     */
    void complete(Request request, Status status) {
        if (!request.markCompleted()) {
            LOG.log(Level.WARNING, "request {0} completed twice; second status {1} dropped", request, status);
            return;
        }
        int head = sqFlowControlDisabled ? SQHD_DISABLED : advanceHead();
        Controller c = controller;
        if (!status.isSuccess() && c != null && request.errorLocation() != Request.NO_ERROR_LOCATION) {
            c.errorLog().record(qid, request, status);
            status = status.withMore();
        }
        // phase tag 0: NVMe-oF carries no phase (NVMe-oF 1.1, 2.2)
        request.cqe().sqHead(head).sqId(qid).cid(request.sqe().cid()).statusWord((status.toField() & 0x7FFF) << 1);
        if (!status.isSuccess() && LOG.isLoggable(Level.DEBUG)) {
            LOG.log(Level.DEBUG, "{0} on qid {1} failed: {2}", request.sqe(), qid, status);
        }
        transport.queueResponse(request);
    }

    /**
     * nvmet_update_sq_head(): one step per completed command. Completions come from the poll thread and, rarely,
     * from another (an Asynchronous Event Request on a timer thread): a compare-and-set instead of a lock per command.
     */
    private int advanceHead() {
        while (true) {
            int old = (int) SQ_HEAD.getVolatile(this);
            int entries = size;
            int next = entries != 0 ? (old + 1) % entries : old;
            if (SQ_HEAD.compareAndSet(this, old, next)) {
                return next;
            }
        }
    }

    private boolean authenticationPermits(SubmissionQueueEntry sqe) {
        QueueAuthentication a = authentication;
        return a == null || a.permits(sqe);
    }

    /** True once this queue may carry commands: no authentication needed, or it succeeded. */
    public boolean authenticated() {
        QueueAuthentication a = authentication;
        return a == null || a.authenticated();
    }

    /** After a Connect of a host with keys: from now on only authentication until it succeeds. */
    void requireAuthentication(DhchapKeys keys) {
        authentication = QueueAuthentication.required(this, controller, keys);
    }

    /** This queue's authentication; created (for a host without keys, which will be refused) on first use. */
    synchronized QueueAuthentication authentication() {
        QueueAuthentication a = authentication;
        if (a == null) {
            a = QueueAuthentication.keyless(this, controller);
            authentication = a;
        }
        return a;
    }

    /**
     * Binds this queue to a controller (nvmet_install_queue()/nvmet_sq_setup()); false when it already is bound.
     */
    synchronized boolean install(Controller c, int queueId, int entries) {
        if (controller != null) {
            return false;
        }
        this.qid = queueId;
        this.size = entries;
        this.sqHead = 0;
        this.controller = c;
        return true;
    }

    /**
     * The host asked in its Connect (CATTR bit 2) for SQ flow control off, which every port offers (TREQ bit 2):
     * from the Connect's own completion on, SQHD is FFFFh and no longer advanced (TP 8005; nvmet_install_queue()
     * sets {@code sqhd_disabled} and answers the Connect with sq_head 0xffff). A transport may then end a
     * successful read with its data alone (NVMe/TCP's C2HData SUCCESS flag, nvmet_setup_c2h_data_pdu()).
     */
    void disableSqFlowControl() {
        sqFlowControlDisabled = true;
    }

    /** True when the host turned SQ flow control off for this queue ({@link #disableSqFlowControl}). */
    public boolean sqFlowControlDisabled() {
        return sqFlowControlDisabled;
    }

    /**
     * The transport's connection is gone (nvmet_sq_destroy()): the queue leaves its controller; when the admin
     * queue goes, pending Asynchronous Event Requests fail; when the last queue goes, the controller is freed and
     * its controller ID becomes available again. Idempotent.
     */
    public void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        QueueAuthentication a = authentication;
        if (a != null) {
            a.close();
        }
        Controller c = controller;
        if (c != null) {
            c.queueDestroyed(this);
        }
    }

    public boolean isDestroyed() {
        return destroyed;
    }

    @Override
    public String toString() {
        Controller c = controller;
        return "queue " + qid + (c == null ? " (not connected)" : " of controller " + c.id()) + " on " + port;
    }
}
