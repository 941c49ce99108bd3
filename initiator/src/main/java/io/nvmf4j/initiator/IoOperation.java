package io.nvmf4j.initiator;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** One caller-visible I/O, split into one or more commands; its future completes when the last one does. */
final class IoOperation {

    final CompletableFuture<Void> future = new CompletableFuture<>();
    private final AtomicInteger remaining;
    private final AtomicReference<NvmfException> firstError = new AtomicReference<>();

    IoOperation(int commands) {
        this.remaining = new AtomicInteger(commands);
    }

    void commandDone(NvmfException error) {
        if (error != null) {
            firstError.compareAndSet(null, error);
        }
        if (remaining.decrementAndGet() == 0) {
            NvmfException e = firstError.get();
            if (e == null) {
                future.complete(null);
            } else {
                future.completeExceptionally(e);
            }
        }
    }
}
