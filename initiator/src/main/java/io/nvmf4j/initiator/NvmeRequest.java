package io.nvmf4j.initiator;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.verbs.MemoryRegion;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One request as the host library hands it to a {@link HostQueue}, like Linux {@code struct nvme_request}: it
 * carries one command (the 64-byte submission queue entry) through submission, re-queueing and completion. It says
 * how to fill the entry (everything but CID, PSDT and SGL1, which the queue writes), where its data lives, and what
 * to do with the outcome. Only this package makes requests; a transport reads them and reports their outcome.
 *
 * <p>Data lives either in a registered region the caller owns ({@link #zeroCopy}: the keyed SGL names it directly)
 * or in any segment ({@link #copy}: the queue stages it through one of its pre-registered bounce buffers). Either
 * way the queue exposes to the controller only the command's own bytes, through a memory window bound for the
 * request's life; the region needs {@code MW_BIND} and no remote access of its own.
 *
 * <p>{@link #completed} and {@link #failed} run on the queue's completion thread: keep them short.
 */
public abstract class NvmeRequest {

    /** Direction of the data transfer, as in NVMe opcode bits 1:0. */
    public enum Direction { NONE, HOST_TO_CONTROLLER, CONTROLLER_TO_HOST }

    private Direction direction = Direction.NONE;
    private MemoryRegion region;
    private long regionOffset;
    private MemorySegment copy;
    /** The caller's memory of a zero-copy request, registered ({@link #region}) or not (NVMe/TCP). */
    private MemorySegment zeroCopySegment;
    private ByteBuffer zeroCopyBuffer;
    private int length;
    /** Set by the queue while the request occupies a slot. */
    private int tag = -1;
    /** Times the queue re-queued it after its connection failed under it, since it was submitted. */
    private int retries;

    NvmeRequest() {
    }

    /** Writes opcode, NSID and command dwords into a cleared entry. May clear the entry itself first. */
    public abstract void encode(SubmissionQueueEntry sqe);

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
    public abstract void completed(int statusField, long result);

    /** The command could not complete: connection lost for good, timeout, queue closed. */
    public abstract void failed(NvmfException error);

    /** No data (Flush, Keep Alive, Property Get/Set): SGL1 is a null keyed descriptor, as Linux sends. */
    public final NvmeRequest noData() {
        direction = Direction.NONE;
        region = null;
        zeroCopySegment = null;
        zeroCopyBuffer = null;
        copy = null;
        length = 0;
        return this;
    }

    /** Data in a caller-registered region: no copy, the keyed SGL carries its address and rkey. */
    public final NvmeRequest zeroCopy(Direction direction, MemoryRegion region, long offset, int length) {
        this.direction = direction;
        this.region = region;
        this.zeroCopySegment = region == null ? null : region.segment();
        this.zeroCopyBuffer = null;
        this.regionOffset = offset;
        this.copy = null;
        this.length = length;
        return this;
    }

    /** Data in a caller's {@link IoBuffer}: registered over RDMA, plain native memory over TCP. */
    final NvmeRequest zeroCopy(Direction direction, IoBuffer buffer, long offset, int length) {
        zeroCopy(direction, buffer.region(), offset, length);
        this.zeroCopySegment = buffer.segment();
        this.zeroCopyBuffer = buffer.direct();
        return this;
    }

    /** Data in any segment (heap or native), staged through a bounce buffer of the queue. */
    public final NvmeRequest copy(Direction direction, MemorySegment segment) {
        if (segment.byteSize() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("one command moves at most 2 GiB");
        }
        this.direction = direction;
        this.region = null;
        this.zeroCopySegment = null;
        this.zeroCopyBuffer = null;
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

    /** The caller's registered region of a zero-copy request, else null. */
    public final MemoryRegion region() {
        return region;
    }

    /**
     * The caller's memory of a zero-copy request (the region's segment over RDMA, an unregistered segment over
     * TCP), else null; the data starts at {@link #regionOffset()}.
     */
    public final MemorySegment zeroCopySegment() {
        return zeroCopySegment;
    }

    /**
     * {@link #zeroCopySegment()} as a direct buffer whose position 0 is the segment's offset 0, when the caller's
     * buffer has one (allocated over NVMe/TCP), else null. Shared by every request on that buffer: a transport
     * duplicates it before it sets a position.
     */
    public final ByteBuffer zeroCopyBuffer() {
        return zeroCopyBuffer;
    }

    /** Where the data starts in {@link #region()} or {@link #zeroCopySegment()}. */
    public final long regionOffset() {
        return regionOffset;
    }

    /** The segment a copying request stages through a bounce buffer, else null. */
    public final MemorySegment copySegment() {
        return copy;
    }

    /** The tag of the slot the request occupies while posted, -1 otherwise. Written by the queue only. */
    public final int tag() {
        return tag;
    }

    public final void tag(int tag) {
        this.tag = tag;
    }

    /** Re-queueings after a failed connection since submission. Written by the queue only. */
    public final int retries() {
        return retries;
    }

    public final void retries(int retries) {
        this.retries = retries;
    }
}
