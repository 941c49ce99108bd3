package io.nvmf4j.target.rdma;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.target.Request;
import io.nvmf4j.verbs.SendWorkRequest;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;

/**
 * The transport's half of one command (nvmet-rdma's {@code struct nvmet_rdma_rsp}, SPDK's
 * {@code struct spdk_nvmf_rdma_request}): the core's {@link Request} whose CQE lives in registered memory, the
 * reusable work requests for the data transfer and the response Send, the data buffer taken from the poll group's
 * pool, and the {@link RdmaRequestState} that {@link RdmaQueue#process} drives. A queue has twice as many of these
 * as receive buffers (like nvmet), so
 * that a receive buffer can be posted again as soon as the response is queued while the response Send is still in
 * flight. Touched only by the queue's poll-group thread.
 */
final class RdmaRequest {

    private static final System.Logger LOG = System.getLogger(RdmaRequest.class.getName());

    final RdmaQueue queue;
    final int index;
    final Request request;
    /** The response Send (SEND or SEND_WITH_INVALIDATE) of the CQE. */
    final SendWorkRequest send = new SendWorkRequest(1);
    /** The RDMA Read of the host's data, or the RDMA Write of read data chained before {@link #send}. */
    final SendWorkRequest data = new SendWorkRequest(1);

    RdmaRequestState state = RdmaRequestState.FREE;
    /** The receive buffer holding the SQE (and in-capsule data), until the response is queued; -1 after. */
    int recvSlot = -1;
    /** Bytes of in-capsule data that arrived after the SQE. */
    int inCapsuleBytes;
    /** Data length the SGL describes (0: no data). */
    int transferLength;
    /** True when the data is the in-capsule data of the receive buffer. */
    boolean inCapsule;
    long remoteAddress;
    int remoteKey;
    /** The host asked for the key to be invalidated with the response (keyed SGL subtype Fh). */
    boolean invalidateKey;
    /** Offset of the data buffer in the poll group's pool, or -1. */
    long bufferOffset = -1;
    /** Work requests posted and not yet completed. */
    int pendingWrs;
    /** When the capsule arrived (System.nanoTime), for latency metrics. */
    long arrivalNanos;
    /** commandStarted was reported to the observer and commandFinished not yet. */
    boolean started;
    /** Next request waiting for a buffer in the poll group's FIFO (or in its queue's, over the queue's limit). */
    RdmaRequest nextWaiting;
    /** Pool bytes counted against the queue's limit for this request (0: none). */
    long quotaBytes;
    /** When the RDMA Read of the host's data was posted (System.nanoTime), for the Read timeout. */
    long readPostedNanos;
    /** When the response (and the RDMA Write of read data before it) was posted, for {@link TransmitProgress}. */
    long responsePostedNanos;

    RdmaRequest(RdmaQueue queue, int index, MemorySegment cqe) {
        this.queue = queue;
        this.index = index;
        this.request = new Request(CompletionQueueEntry.wrap(cqe));
        this.request.transportContext(this);
    }

    /** Moves to {@code next}: checked against the transition table (a bug otherwise), traced when asked for. */
    void to(RdmaRequestState next) {
        if (!state.canMoveTo(next)) {
            RdmaRequestState.checkTransition(state, next, this);
        }
        if (queue.trace && LOG.isLoggable(Level.TRACE)) {
            LOG.log(Level.TRACE, "{0} request {1} cid {2}: {3} -> {4}", queue, index,
                    request.sqe() == null ? -1 : request.sqe().cid(), state, next);
        }
        state = next;
    }

    /** Starts a new command from receive buffer {@code slot}. */
    void start(int slot, int capsuleBytes, long nowNanos) {
        recvSlot = slot;
        inCapsuleBytes = capsuleBytes - SubmissionQueueEntry.SIZE;
        transferLength = 0;
        inCapsule = false;
        remoteAddress = 0;
        remoteKey = 0;
        invalidateKey = false;
        bufferOffset = -1;
        pendingWrs = 0;
        arrivalNanos = nowNanos;
        nextWaiting = null;
        quotaBytes = 0;
        started = false;
        request.reset(queue.sqeOf(slot));
        to(RdmaRequestState.NEW);
        // RdmaQueue.process takes it on from NEW
    }

    boolean needsBuffer() {
        return transferLength > 0 && !inCapsule;
    }

    @Override
    public String toString() {
        return "RdmaRequest[" + index + " " + state + " " + request + "]";
    }
}
