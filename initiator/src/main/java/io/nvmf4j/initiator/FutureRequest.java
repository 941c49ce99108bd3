package io.nvmf4j.initiator;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A request whose outcome is a future of the 64-bit CQE result (admin and fabrics commands). Completed on the
 * queue's completion thread.
 */
final class FutureRequest extends NvmeRequest {

    private final String description;
    private final Consumer<SubmissionQueueEntry> encoder;
    private final boolean fabrics;
    private final boolean retry;
    final CompletableFuture<Long> future = new CompletableFuture<>();
    /** False for an Asynchronous Event Request, which waits for an event as long as it takes. */
    boolean deadline = true;

    FutureRequest(String description, boolean fabrics, boolean retry, Consumer<SubmissionQueueEntry> encoder) {
        this.description = description;
        this.encoder = encoder;
        this.fabrics = fabrics;
        this.retry = retry;
    }

    @Override
    public void encode(SubmissionQueueEntry sqe) {
        encoder.accept(sqe);
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public boolean isFabrics() {
        return fabrics;
    }

    @Override
    public boolean hasDeadline() {
        return deadline;
    }

    @Override
    public boolean retryAfterReconnect() {
        return retry;
    }

    @Override
    public void completed(int statusField, long result) {
        if (statusField == 0) {
            future.complete(result);
        } else {
            future.completeExceptionally(new NvmfStatusException(description, Status.fromField(statusField), fabrics,
                    result));
        }
    }

    @Override
    public void failed(NvmfException error) {
        future.completeExceptionally(error);
    }
}
