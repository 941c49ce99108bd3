package io.nvmf4j.initiator.tcp;

import io.nvmf4j.initiator.NvmeRequest;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One tag of a TCP host queue and the command occupying it (Linux {@code struct nvme_tcp_request}): its SQE, where
 * its data lives, and how far the data has moved (C2HData received, H2CData sent). Preallocated: nothing per I/O.
 */
final class TcpSlot {

    /** Bits of the CID that carry the tag; the rest count reuses of the tag (Linux {@code nvme_cid()}). */
    static final int TAG_BITS = 12;
    static final int TAG_MASK = (1 << TAG_BITS) - 1;

    final int tag;
    final SubmissionQueueEntry sqe;
    private int reuse;

    /** Null while the tag is free. */
    NvmeRequest request;
    int cid;
    long startNanos;
    MemorySegment data;
    long dataOffset;
    /**
     * {@link #data} as a direct buffer of this slot's own (position 0 is the segment's offset 0), for a gathering
     * write or a scattering read straight from or into it; null when the request's buffer has none (copy path).
     * Kept across commands: a duplicate is made only when the slot sees a buffer it has not seen last.
     */
    ByteBuffer dataView;
    /** The duplicate last made, and of which buffer: a command without one (a Flush) leaves it for the next. */
    private ByteBuffer cachedView;
    private ByteBuffer cachedViewOf;
    int length;
    /** The write's data went in the capsule: no R2T may name it. */
    boolean inCapsule;
    /** Bytes of C2HData placed (DATAO of the next one). */
    long received;
    /** Bytes of H2CData sent (R2TO of the next R2T may not go below it). */
    long sent;

    TcpSlot(int tag, MemorySegment sqeMemory) {
        this.tag = tag;
        this.sqe = SubmissionQueueEntry.wrap(sqeMemory);
    }

    /** Takes the tag for {@code r}: a new CID, its data as the request describes it. */
    void start(NvmeRequest r, long now) {
        request = r;
        reuse = (reuse + 1) & (0xffff >>> TAG_BITS);
        cid = reuse << TAG_BITS | tag;
        startNanos = now;
        length = r.length();
        if (r.zeroCopySegment() != null) {
            data = r.zeroCopySegment();
            dataOffset = r.regionOffset();
            ByteBuffer direct = r.zeroCopyBuffer();
            if (direct != null && direct != cachedViewOf) {
                cachedViewOf = direct;
                cachedView = direct.duplicate();
            }
            dataView = direct == null ? null : cachedView;
        } else {
            data = r.copySegment();
            dataOffset = 0;
            dataView = null;
        }
        inCapsule = false;
        received = 0;
        sent = 0;
    }

    /** Frees the tag; the request it held. */
    NvmeRequest release() {
        NvmeRequest r = request;
        request = null;
        data = null;
        dataView = null; // the duplicate stays cached for the next command on the same buffer
        return r;
    }

    boolean expired(long now, long timeoutNanos) {
        return request != null && request.hasDeadline() && now - startNanos - timeoutNanos > 0;
    }
}
