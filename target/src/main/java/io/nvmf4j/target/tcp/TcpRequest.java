package io.nvmf4j.target.tcp;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.tcp.CapsulePdu;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.target.Request;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One command slot of a {@link TcpQueue} (nvmet-tcp's {@code struct nvmet_tcp_cmd}), created on first need and
 * reused: the SQE copied out of the CapsuleCmd PDU, the core's {@link Request} whose CQE is written straight into
 * this slot's CapsuleResp PDU, its own in-capsule data buffer, the PDUs it sends (R2T, C2HData header, CapsuleResp)
 * and the gathering-write vector that sends them. Its index is the transfer tag (TTAG) of its R2T, as
 * {@code nvmet_tcp_cmd_tag()}. Poll-group thread only.
 */
final class TcpRequest {

    enum State {
        FREE,
        /** Parsed; waits for a pool buffer for its R2T'd or read data. */
        NEED_BUFFER,
        /** Its R2T is sent or queued; H2CData PDUs fill its buffer. */
        WAIT_H2C,
        /** In the core (prepare, execute, backend, waiting for an event). */
        EXECUTING,
        /** Its R2T, data and/or response are queued on the connection's transmit path. */
        SENDING
    }

    /** Room for a data PDU header: 24 bytes, header digest and padding up to the largest HPDA (128). */
    static final int DATA_HEADER_ROOM = 256;
    /** A CapsuleResp or R2T PDU with its header digest. */
    static final int SHORT_PDU_ROOM = 32;

    final TcpQueue queue;
    final int tag;
    final Request request;
    final MemorySegment sqeMemory;
    final SubmissionQueueEntry sqe;
    /** CapsuleResp PDU: common header, the CQE the core fills, header digest. */
    final MemorySegment response;
    final ByteBuffer responseView;
    final MemorySegment r2t;
    final ByteBuffer r2tView;
    final MemorySegment dataHeader;
    final ByteBuffer dataHeaderView;
    final MemorySegment dataDigest;
    final ByteBuffer dataDigestView;
    /** This slot's in-capsule data buffer (the port's inline data size), or null when the port has none. */
    final DataBlock inCapsule;
    /** The gathering write of what this request sends next, {@link #txCount} buffers. */
    final ByteBuffer[] tx = new ByteBuffer[4];
    int txCount;
    /** Whether what is queued is the R2T (the request goes on waiting for data) or the response (it ends). */
    boolean txIsR2t;

    State state = State.FREE;
    /** In-capsule data bytes of the capsule. */
    int inCapsuleBytes;
    /** The SGL points into the in-capsule data, at {@link #inCapsuleOffset}. */
    boolean usesInCapsule;
    /** A timed-out backend operation still uses the in-capsule buffer: the slot is not reused until it ends. */
    boolean inCapsuleLent;
    int inCapsuleOffset;
    /** The pool block holding its R2T'd or read data, or null. */
    DataBlock block;
    /** Bytes of data the command moves (after the SGL and the core agreed). */
    int transferLength;
    /** H2CData bytes received so far (nvmet's {@code rbytes_done}): the next DATAO must be this. */
    int received;
    /** Where the data of the H2CData PDU being received ends. */
    int h2cEnd;
    /** The core parsed it and the observer was told it started. */
    boolean started;
    /** When its capsule arrived, when its R2T was queued, and when its PDUs were last queued (System.nanoTime). */
    long arrivalNanos;
    long r2tNanos;
    long txQueuedNanos;
    /** Pool bytes this request counts against its queue's share ({@link TcpBufferQuota}), 0 when none. */
    long quotaBytes;
    /** The next request waiting on the queue's share ({@link TcpBufferQuota}). */
    TcpRequest nextWaiting;

    TcpRequest(TcpQueue queue, int tag, ByteBuffer memory, DataBlock inCapsule) {
        this.queue = queue;
        this.tag = tag;
        this.sqeMemory = MemorySegment.ofBuffer(memory.slice(0, SubmissionQueueEntry.SIZE));
        this.sqe = SubmissionQueueEntry.wrap(sqeMemory);
        int at = SubmissionQueueEntry.SIZE;
        this.responseView = memory.slice(at, SHORT_PDU_ROOM);
        at += SHORT_PDU_ROOM;
        this.r2tView = memory.slice(at, SHORT_PDU_ROOM);
        at += SHORT_PDU_ROOM;
        this.dataDigestView = memory.slice(at, PduHeader.DIGEST_LENGTH);
        at += SHORT_PDU_ROOM;
        this.dataHeaderView = memory.slice(at, DATA_HEADER_ROOM);
        this.response = MemorySegment.ofBuffer(responseView);
        this.r2t = MemorySegment.ofBuffer(r2tView);
        this.dataDigest = MemorySegment.ofBuffer(dataDigestView);
        this.dataHeader = MemorySegment.ofBuffer(dataHeaderView);
        this.request = new Request(CompletionQueueEntry.wrap(
                response.asSlice(CapsulePdu.OFFSET_ENTRY, CompletionQueueEntry.SIZE)));
        this.request.transportContext(this);
        this.inCapsule = inCapsule;
    }

    /** Bytes of memory one request's fixed part takes ({@link #TcpRequest}'s {@code memory}). */
    static long memoryBytes() {
        return SubmissionQueueEntry.SIZE + 3L * SHORT_PDU_ROOM + DATA_HEADER_ROOM;
    }

    /** Queues buffer {@code b} set to bytes {@code from}..{@code to} as the next part of the write. */
    void send(ByteBuffer b, long from, long to) {
        b.limit((int) to).position((int) from);
        tx[txCount++] = b;
    }

    boolean txDone() {
        return !tx[txCount - 1].hasRemaining();
    }
}
