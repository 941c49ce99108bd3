package io.nvmf4j.initiator;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** One caller-visible I/O, split into one or more commands; its future completes when the last one does. */
final class IoOperation {

    final CompletableFuture<Void> future;
    private final IoCallback callback;
    private final AtomicInteger remaining;
    private final AtomicReference<NvmfException> firstError = new AtomicReference<>();

    IoOperation(int commands) {
        this(commands, null);
    }

    /** With a callback instead of a future (no future is made). */
    IoOperation(int commands, IoCallback callback) {
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
