package io.nvmf4j.target;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.target.backend.BackendCompletion;
import io.nvmf4j.target.backend.BackendOp;
import java.lang.foreign.MemorySegment;

/**
 * One command on its way through the target (nvmet's {@code struct nvmet_req}). Owned and reused by the transport:
 * it carries the SQE from the command capsule, the data buffer the transport obtained for it, the CQE the core fills
 * in, and an opaque slot for the transport's own per-request state.
 *
 * <p>Life of a request, as the transport drives it:
 * <ol>
 *   <li>{@link #reset(SubmissionQueueEntry)} with the received SQE;</li>
 *   <li>{@link SubmissionQueue#prepare(Request)}: the core parses the command. {@code false} means it already failed
 *       and was handed to {@link TransportQueue#queueResponse(Request)}; otherwise {@link #dataDirection()} and
 *       {@link #expectedDataLength()} say what data the command moves;</li>
 *   <li>the transport provides the buffer, {@link #data(MemorySegment)}, sized by the SGL (for host-to-controller
 *       data already filled: RDMA Read or in-capsule), or fails the request with {@link #fail(Status, int)} (an
 *       unusable SGL);</li>
 *   <li>{@link SubmissionQueue#execute(Request)}: the command runs and the request comes back through
 *       {@link TransportQueue#queueResponse(Request)}, with controller-to-host data in {@link #data()}.</li>
 * </ol>
 */
public final class Request implements BackendCompletion {

    /** nvmet's NVMET_NO_ERROR_LOC: the status carries no parameter location and is not logged. */
    public static final int NO_ERROR_LOCATION = 0xFFFF;

    private final CompletionQueueEntry cqe;
    private SubmissionQueueEntry sqe;
    private MemorySegment data = MemorySegment.NULL;
    private Object transportContext;

    // Set by the core while parsing and executing.
    SubmissionQueue sq;
    SubsystemNamespace ns;
    CommandHandler handler;
    private DataDirection direction = DataDirection.NONE;
    private long expectedDataLength;
    /** True when the SGL must describe exactly {@link #expectedDataLength} (nvmet_check_transfer_len()). */
    private boolean exactDataLength = true;
    private int errorLocation = NO_ERROR_LOCATION;
    private long errorLba;
    private boolean disconnectAfterResponse;
    /** Why a Connect was refused (set only on that path; null otherwise). */
    private String refusal;
    /** Written by the queue's thread; volatile because tests and teardown read it from others. */
    private volatile ExecutionState state = ExecutionState.PENDING;
    // Read/Write fields decoded once by IoCommands.parse (no command wrapper per I/O)
    long slba;
    int blocks;
    boolean fua;
    /** The backend operation of this command while it is {@link ExecutionState#WAITING_FOR_BACKEND}, else null. */
    BackendOp backendOp;
    /** Steps of a command that takes several backend operations (Write Zeroes + FUA flush, DSM ranges). */
    Object backendSteps;
    int backendStep;

    /** A request whose CQE lives on the heap. */
    public Request() {
        this(CompletionQueueEntry.allocate());
    }

    /** A request whose CQE is written straight into {@code cqe} (a registered send buffer, for instance). */
    public Request(CompletionQueueEntry cqe) {
        this.cqe = cqe;
    }

    /** Starts a new command in this (reused) request. */
    public Request reset(SubmissionQueueEntry sqe) {
        this.sqe = sqe;
        this.data = MemorySegment.NULL;
        this.sq = null;
        this.ns = null;
        this.handler = null;
        this.direction = DataDirection.NONE;
        this.expectedDataLength = 0;
        this.exactDataLength = true;
        this.errorLocation = NO_ERROR_LOCATION;
        this.errorLba = 0;
        this.disconnectAfterResponse = false;
        this.refusal = null;
        this.state = ExecutionState.PENDING;
        this.slba = 0;
        this.blocks = 0;
        this.fua = false;
        this.backendOp = null;
        this.backendSteps = null;
        this.backendStep = 0;
        cqe.clear();
        return this;
    }

    public SubmissionQueueEntry sqe() {
        return sqe;
    }

    public CompletionQueueEntry cqe() {
        return cqe;
    }

    /** The data buffer; its size is the transfer length the SGL describes (nvmet's {@code transfer_len}). */
    public MemorySegment data() {
        return data;
    }

    public Request data(MemorySegment segment) {
        this.data = segment == null ? MemorySegment.NULL : segment;
        return this;
    }

    /** The transfer length described by the command's SGL: the size of {@link #data()}. */
    public long transferLength() {
        return data.byteSize();
    }

    public Object transportContext() {
        return transportContext;
    }

    public Request transportContext(Object context) {
        this.transportContext = context;
        return this;
    }

    /** Which way the parsed command moves data (valid after a successful prepare). */
    public DataDirection dataDirection() {
        return direction;
    }

    /**
     * Bytes of data the parsed command implies (NLB × block size for Read/Write, 4096 for Identify, NUMD × 4 for
     * Get Log Page, 1024 for Connect, 16 × ranges for Dataset Management, 0 for commands without data). The core
     * fails the command with Data SGL Length Invalid when the SGL disagrees, like nvmet_check_transfer_len().
     */
    public long expectedDataLength() {
        return expectedDataLength;
    }

    /** The namespace the command addresses, resolved during prepare (null for admin commands). */
    public SubsystemNamespace namespace() {
        return ns;
    }

    public SubmissionQueue queue() {
        return sq;
    }

    /** Offset of the field the failure is about (req->error_loc), or {@link #NO_ERROR_LOCATION}. */
    public int errorLocation() {
        return errorLocation;
    }

    public Request errorLocation(int offset) {
        this.errorLocation = offset;
        return this;
    }

    /** LBA reported in the error log entry (req->error_slba). */
    public long errorLba() {
        return errorLba;
    }

    public Request errorLba(long lba) {
        this.errorLba = lba;
        return this;
    }

    /** Set for a Disconnect: the transport closes the queue after sending this response. */
    public boolean disconnectAfterResponse() {
        return disconnectAfterResponse;
    }

    void disconnectAfterResponse(boolean value) {
        this.disconnectAfterResponse = value;
    }

    /** Why the core refused this Connect, for the transport's one log line per refused connection; else null. */
    public String refusal() {
        return refusal;
    }

    void refusal(String text) {
        this.refusal = text;
    }

    /** Where this command is between its handler and its completion. */
    public ExecutionState state() {
        return state;
    }

    /** True while a backend operation of this command runs: its data buffer must be left alone. */
    public boolean waitingForBackend() {
        return state == ExecutionState.WAITING_FOR_BACKEND;
    }

    /** Its handler starts ({@link SubmissionQueue#execute}). */
    void executing() {
        state = ExecutionState.EXECUTING;
    }

    /**
     * The handler leaves the command waiting for {@code reason} (one of the {@linkplain ExecutionState#waiting()
     * waiting states}) and returns no status: whatever it waits for completes it later, on the queue's thread.
     */
    void waitFor(ExecutionState reason) {
        if (!reason.waiting()) {
            throw new IllegalArgumentException(reason + " is not a waiting state");
        }
        state = reason;
    }

    /** A backend operation of this command ended (on the queue's thread): see {@link BackendCommands}. */
    @Override
    public void backendCompleted(int result) {
        try {
            BackendCommands.completed(this, result);
        } catch (RuntimeException e) {
            // nothing one connection causes may escape into the poll loop: it ends that connection only
            sq.transport().failed(e);
        }
    }

    @Override
    public Runnable backendAbandoned() {
        return sq.transport().detachData(this);
    }

    public boolean isCompleted() {
        return state == ExecutionState.COMPLETED;
    }

    /** The 15-bit status field of the CQE once completed (0: success); allocation-free, unlike {@link #status()}. */
    public int statusField() {
        return cqe.statusField();
    }

    /** The status in the CQE once completed. */
    public Status status() {
        return Status.fromField(cqe.statusField());
    }

    void prepared(CommandHandler handler, DataDirection direction, long expectedDataLength) {
        this.handler = handler;
        this.direction = direction;
        this.expectedDataLength = expectedDataLength;
        this.exactDataLength = true;
    }

    /**
     * Like {@link #prepared(CommandHandler, DataDirection, long)} for a command whose SGL may describe more than
     * it uses (nvmet_check_data_len_lte(): Get/Set Features, Dataset Management): only the first
     * {@code usedDataLength} bytes are ever transferred.
     */
    void preparedAtMost(CommandHandler handler, DataDirection direction, long usedDataLength) {
        prepared(handler, direction, usedDataLength);
        this.exactDataLength = false;
    }

    /**
     * The bytes a transport should move for a command whose SGL describes {@code sglLength} bytes, decided before
     * it takes any buffer or posts any RDMA Read (a peer-controlled length is checked first): the expected length
     * when the SGL matches it (or, for {@link #preparedAtMost} commands, covers it), else -1 with the data pointer
     * as error location, and the transport fails the command with Data SGL Length Invalid like
     * nvmet_check_transfer_len() would have. Never more than the command produces: a 1 MiB SGL on Get Features KATO
     * moves nothing, so no byte the command did not produce can reach the host.
     */
    public long admitTransfer(long sglLength) {
        boolean ok = exactDataLength ? sglLength == expectedDataLength : sglLength >= expectedDataLength;
        if (!ok) {
            errorLocation = SubmissionQueueEntry.OFFSET_DPTR;
            return -1;
        }
        return expectedDataLength;
    }

    /** Marks the request completed; false if it already was (a second completion is a bug we refuse). */
    boolean markCompleted() {
        if (state == ExecutionState.COMPLETED) {
            return false;
        }
        state = ExecutionState.COMPLETED;
        return true;
    }

    /**
     * Completes the request with an error the transport found (an SGL it cannot use, a failed RDMA Read): the
     * status goes through the same path as a handler's, into the error log with {@code errorLocation}.
     */
    public void fail(Status status, int errorLocation) {
        this.errorLocation = errorLocation;
        sq.complete(this, status);
    }

    @Override
    public String toString() {
        return "Request[" + sqe + (state == ExecutionState.COMPLETED ? " " + cqe : " " + state) + "]";
    }
}
