package io.nvmf4j.initiator;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One caller-visible I/O of the {@code *Async} and callback forms (Linux: a bio), split into one or more
 * {@link OperationRequest}s, one command each; its future completes when the last one does.
 */
final class IoOperation {

    final CompletableFuture<Void> future;
    private final IoCallback callback;
    private final AtomicInteger remaining;
    private final AtomicReference<NvmfException> firstError = new AtomicReference<>();
    /**
     * A multipath I/O (Linux REQ_NVME_MPATH / REQ_FAILFAST_TRANSPORT): its commands fail when the connection breaks
     * under them instead of waiting for this controller's reconnect, so {@link MultipathNamespace} can send them
     * down another path (nvme_failover_req()).
     */
    final boolean failFast;

    IoOperation(int commands) {
        this(commands, null);
    }

    /** With a callback instead of a future (no future is made). */
    IoOperation(int commands, IoCallback callback) {
        this(commands, callback, false);
    }

    /** With a callback, failing fast on a broken connection when {@code failFast} (multipath). */
    IoOperation(int commands, IoCallback callback, boolean failFast) {
        this.failFast = failFast;
        this.remaining = new AtomicInteger(commands);
        this.callback = callback;
        this.future = callback == null ? new CompletableFuture<>() : null;
    }

    void commandDone(NvmfException error) {
        if (error != null) {
            firstError.compareAndSet(null, error);
        }
        if (remaining.decrementAndGet() == 0) {
            NvmfException e = firstError.get();
            if (callback != null) {
                callback.completed(e);
                return;
            }
            if (e == null) {
                future.complete(null);
            } else {
                future.completeExceptionally(e);
            }
        }
    }
}
