package io.nvmf4j.initiator.rdma;

import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.verbs.MemoryRegion;
import java.lang.foreign.MemorySegment;

/**
 * One request as the host library hands it to a queue, like Linux {@code struct nvme_request}: it carries one
 * command (the 64-byte submission queue entry) through submission, re-queueing and completion. It says how to fill
 * the entry (everything
 * but CID, PSDT and SGL1, which the queue writes), where its data lives, and what to do with the outcome.
 * Library-internal (public only because the package split needs it).
 *
 * <p>Data lives either in a registered region the caller owns ({@link #zeroCopy}: the keyed SGL names it directly)
 * or in any segment ({@link #copy}: the queue stages it through one of its pre-registered bounce buffers). Either
 * way the queue exposes to the controller only the command's own bytes, through a memory window bound for the
 * command's life; the region needs {@code MW_BIND} and no remote access of its own.
 *
 * <p>{@link #completed} and {@link #failed} run on the queue's completion thread: keep them short.
 */
public abstract class NvmeRequest {

    /** Direction of the data transfer, as in NVMe opcode bits 1:0. */
    public enum Direction { NONE, HOST_TO_CONTROLLER, CONTROLLER_TO_HOST }

    Direction direction = Direction.NONE;
    MemoryRegion region;
    long regionOffset;
    MemorySegment copy;
    int length;
    /** Set by the queue while the command is posted. */
    int tag = -1;
    /** When it was posted ({@code System.nanoTime()} scale; the completion thread's loop time when posted there). */
    long startNanos;
    /** Times the queue re-queued it after its connection failed under it, since it was submitted. */
    int retries;

    /** Writes opcode, NSID and command dwords into a cleared entry. May clear the entry itself first. */
    protected abstract void encode(SubmissionQueueEntry sqe);

    /** A short description for errors, e.g. "Read nsid 1 slba 0 blocks 8". */
    public abstract String describe();

    /** True for fabrics commands (Connect, Property Get/Set): their command-specific statuses mean other things. */
    public boolean isFabrics() {
        return false;
    }

    /**
     * Whether the command is sent again after the connection is re-established (I/O and user admin commands) or
     * failed when the connection breaks under it (the commands of the connect sequence itself, keep-alive).
     */
    public boolean retryAfterReconnect() {
        return true;
    }

    /**
     * Whether the command fails after the queue's command timeout. An Asynchronous Event Request has no deadline:
     * the controller holds it until an event occurs (Linux submits it outside blk-mq, so no request timeout
     * applies: {@code nvme_rdma_submit_async_event()}).
     */
    public boolean hasDeadline() {
        return true;
    }

    /**
     * The controller answered. {@code statusField} is the 15-bit status field (0 for success), {@code result} the
     * 64-bit command-specific result of CQE DW0-1.
     */
    protected abstract void completed(int statusField, long result);

    /** The command could not complete: connection lost for good, timeout, queue closed. */
    protected abstract void failed(NvmfException error);

    /** No data (Flush, Keep Alive, Property Get/Set): SGL1 is a null keyed descriptor, as Linux sends. */
    public final NvmeRequest noData() {
        direction = Direction.NONE;
        region = null;
        copy = null;
        length = 0;
        return this;
    }

    /** Data in a caller-registered region: no copy, the keyed SGL carries its address and rkey. */
    public final NvmeRequest zeroCopy(Direction direction, MemoryRegion region, long offset, int length) {
        this.direction = direction;
        this.region = region;
        this.regionOffset = offset;
        this.copy = null;
        this.length = length;
        return this;
    }

    /** Data in any segment (heap or native), staged through a bounce buffer of the queue. */
    public final NvmeRequest copy(Direction direction, MemorySegment segment) {
        if (segment.byteSize() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("one command moves at most 2 GiB");
        }
        this.direction = direction;
        this.region = null;
        this.copy = segment;
        this.length = (int) segment.byteSize();
        return this;
    }

    public final Direction direction() {
        return direction;
    }

    public final int length() {
        return length;
    }
}
