package io.nvmf4j.initiator;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.io.FlushCommand;
import io.nvmf4j.protocol.io.ReadCommand;
import io.nvmf4j.protocol.io.WriteCommand;

/**
 * A reusable I/O request that carries one command at a time: a zero-copy read or write on a registered
 * {@link IoBuffer}, or a Flush, owned by the caller, set up with {@link #read}/{@link #write}/{@link #flush},
 * submitted with {@link Namespace#submit(IoRequest)} and, once its {@link IoCompletionHandler} has run, set up and
 * submitted again. Steady-state I/O this way allocates nothing: no future, no per-I/O request object, no descriptor
 * record (the queue writes the SQE and SGL1 in place).
 * A Flush is the same path as the data it makes durable, so a write-then-flush loop (a log, a database commit)
 * needs no {@code CompletableFuture} either.
 *
 * <p>One request is one command, so it moves at most {@link Namespace#maxBlocksPerRequest()} blocks (MDTS and the
 * 16-bit NLB); larger transfers use the {@code *Async} forms, which split. A request may be in flight only once:
 * changing or submitting it again before its handler ran throws {@link IllegalStateException}. Not thread-safe: a
 * request belongs to one submitter at a time (the completion handler counts as its owner while it runs). Which
 * thread runs the handler, on success and on each kind of failure: see {@link IoCompletionHandler}.
 *
 * <p>Mirrors SPDK's caller-owned I/O model ({@code spdk_nvme_ns_cmd_read} / {@code spdk_nvme_ns_cmd_flush} with a
 * per-request callback argument) and Linux's preallocated {@code struct nvme_rdma_request} per tag.
 */
public final class IoRequest {

    /** What the next submission sends. */
    private enum Kind { READ, WRITE, FLUSH }

    private final IoCompletionHandler handler;
    private final Queued queued = new Queued();
    private Kind kind = Kind.READ;
    private long slba;
    private int blocks;
    private boolean fua;
    private IoBuffer buffer;
    private long offset;
    private long nsid;
    private int statusField;
    private boolean inFlight;
    private long userData;

    /** A request whose completions go to {@code handler}. */
    public IoRequest(IoCompletionHandler handler) {
        if (handler == null) {
            throw new NullPointerException("handler");
        }
        this.handler = handler;
    }

    /** Sets this request up as a read of {@code blocks} blocks at {@code slba} into {@code buffer} at {@code offset}. */
    public IoRequest read(long slba, int blocks, IoBuffer buffer, long offset) {
        return set(true, slba, blocks, buffer, offset);
    }

    /** Sets this request up as a write of {@code blocks} blocks to {@code slba} from {@code buffer} at {@code offset}. */
    public IoRequest write(long slba, int blocks, IoBuffer buffer, long offset) {
        return set(false, slba, blocks, buffer, offset);
    }

    /**
     * Sets this request up as a Flush (NVM Command Set 1.0, 3.2.2) of the namespace it is submitted to: the
     * controller commits its volatile write cache, so the writes completed before it survive a power loss. No data,
     * no buffer.
     */
    public IoRequest flush() {
        requireIdle();
        this.kind = Kind.FLUSH;
        this.slba = 0;
        this.blocks = 0;
        this.buffer = null;
        this.offset = 0;
        this.fua = false;
        this.statusField = 0;
        return this;
    }

    private IoRequest set(boolean read, long slba, int blocks, IoBuffer buffer, long offset) {
        requireIdle();
        if (buffer == null) {
            throw new NullPointerException("buffer");
        }
        this.kind = read ? Kind.READ : Kind.WRITE;
        this.slba = slba;
        this.blocks = blocks;
        this.buffer = buffer;
        this.offset = offset;
        this.fua = false;
        this.statusField = 0;
        return this;
    }

    /** Force Unit Access (CDW12 bit 30) for the next read or write; reset by {@link #read}/{@link #write}. */
    public IoRequest fua(boolean fua) {
        requireIdle();
        if (kind == Kind.FLUSH) {
            throw new IllegalStateException("a Flush has no FUA bit");
        }
        this.fua = fua;
        return this;
    }

    /** A caller's value carried with the request (e.g. a slot index), untouched by the library. */
    public IoRequest userData(long value) {
        this.userData = value;
        return this;
    }

    public long userData() {
        return userData;
    }

    public boolean isRead() {
        return kind == Kind.READ;
    }

    /** True when set up by {@link #flush()}. */
    public boolean isFlush() {
        return kind == Kind.FLUSH;
    }

    public long slba() {
        return slba;
    }

    public int blocks() {
        return blocks;
    }

    /** The buffer of a read or write; null for a Flush. */
    public IoBuffer buffer() {
        return buffer;
    }

    public long offset() {
        return offset;
    }

    public boolean fua() {
        return fua;
    }

    /** True from {@link Namespace#submit(IoRequest)} until just before the handler runs. */
    public boolean inFlight() {
        return inFlight;
    }

    /** The 15-bit NVMe status field of the last completion (0: success; also 0 after a transport failure). */
    public int statusField() {
        return statusField;
    }

    private void requireIdle() {
        if (inFlight) {
            throw new IllegalStateException("I/O request is in flight: " + queued.describe());
        }
    }

    /** Called by {@link Namespace#submit(IoRequest)}: binds the namespace and hands out what the queue carries. */
    NvmeRequest arm(long nsid, int length) {
        requireIdle();
        this.nsid = nsid;
        this.statusField = 0;
        if (kind == Kind.FLUSH) {
            queued.noData();
        } else {
            queued.zeroCopy(kind == Kind.READ ? NvmeRequest.Direction.CONTROLLER_TO_HOST
                    : NvmeRequest.Direction.HOST_TO_CONTROLLER, buffer, offset, length);
        }
        inFlight = true;
        return queued;
    }

    /** Submission refused before reaching a queue. */
    void disarm() {
        inFlight = false;
    }

    private void complete(NvmfException error) {
        inFlight = false;
        handler.completed(this, error);
    }

    /**
     * Writes a Read or Write (NVM Command Set 1.0, 3.2.4/3.2.6) with protocol's in-place encoders, which allocate
     * nothing.
     */
    static void encodeReadWrite(SubmissionQueueEntry sqe, boolean read, long nsid, long slba, int blocks,
            boolean fua) {
        if (read) {
            ReadCommand.encode(sqe, nsid, slba, blocks, fua);
        } else {
            WriteCommand.encode(sqe, nsid, slba, blocks, fua);
        }
    }

    /** What the queue carries for this request: one {@link NvmeRequest}, reused for every submission. */
    private final class Queued extends NvmeRequest {

        @Override
        public void encode(SubmissionQueueEntry sqe) {
            if (kind == Kind.FLUSH) {
                FlushCommand.encode(sqe, nsid);
            } else {
                encodeReadWrite(sqe, kind == Kind.READ, nsid, slba, blocks, fua);
            }
        }

        @Override
        public String describe() {
            return switch (kind) {
                case FLUSH -> "Flush nsid " + nsid;
                case READ -> "Read nsid " + nsid + " slba " + slba + " blocks " + blocks;
                case WRITE -> "Write nsid " + nsid + " slba " + slba + " blocks " + blocks;
            };
        }

        @Override
        public void completed(int status, long result) {
            statusField = status;
            complete(status == 0 ? null : new NvmfStatusException(describe(), Status.fromField(status), false));
        }

        @Override
        public void failed(NvmfException error) {
            complete(error);
        }
    }
}
