package io.nvmf4j.initiator.rdma;

import io.nvmf4j.initiator.NvmeRequest;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.SendWorkRequest;

/**
 * One slot of a queue, preallocated per tag like Linux {@code struct nvme_rdma_request}: the 64-byte SQE in the
 * queue's registered SQE region, the reusable send work request (SQE + in-capsule data), the memory window that
 * exposes the command's bytes, and the transport state while a {@link NvmeRequest} occupies it. The
 * deadline is {@link #startNanos} plus the queue's command timeout. Guarded by the queue's lock.
 */
final class RequestSlot {

    final int tag;
    final SubmissionQueueEntry sqe;
    final SendWorkRequest send;
    /** Bound to the command's bytes while {@link #keyed}: its key went out in the keyed SGL. */
    final MemoryWindow window;

    /** The request in this slot, null when free. */
    NvmeRequest request;
    /** Index of the bounce buffer staging the command's data, -1 for none (zero copy or no data). */
    int buffer = -1;
    boolean keyed;
    /** nvme_rdma_send_done() seen: the SQE may be reused once the response is in too. */
    boolean sendDone;
    /** nvme_rdma_recv_done() seen, with {@link #status} and {@link #result} of its CQE. */
    boolean responseDone;
    int status;
    long result;
    /** When the request was posted ({@code System.nanoTime()} scale; the completion thread's loop time there). */
    long startNanos;

    RequestSlot(int tag, SubmissionQueueEntry sqe, SendWorkRequest send, MemoryWindow window) {
        this.tag = tag;
        this.sqe = sqe;
        this.send = send;
        this.window = window;
    }

    /** Takes the slot for {@code c}, sent at {@code startNanos}. */
    void start(NvmeRequest c, int bufferIndex, long startNanos) {
        request = c;
        buffer = bufferIndex;
        sendDone = false;
        responseDone = false;
        this.startNanos = startNanos;
        c.tag(tag);
    }

    /** Whether the command's deadline has passed at {@code now}. */
    boolean expired(long now, long timeoutNanos) {
        return request != null && request.hasDeadline() && now - this.startNanos > timeoutNanos;
    }
}
