package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The tests' thread that takes over a queue's completion polling ({@link QueuePolling}), as a ublk queue thread
 * does: run on a named thread of its own, claim within a bound. Shared by the RDMA and TCP tests of the same
 * scenarios.
 */
public final class ClaimingThread {

    /** A thread's body, which may throw (its failure fails the test). */
    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    private ClaimingThread() {
    }

    /**
     * Runs {@code body} on a platform thread of its own named {@code name} (the handlers of what it polls report
     * that name) and waits for it up to {@code bound}; what it throws is rethrown here.
     */
    public static void onThread(String name, Duration bound, Body body) throws Exception {
        CompletableFuture<Void> result = new CompletableFuture<>();
        Thread.ofPlatform().name(name).start(() -> {
            try {
                body.run();
                result.complete(null);
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        try {
            result.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw (Error) e.getCause();
        }
    }

    /** Claims the queue until granted (the completion thread grants at its next poll), within {@code bound}. */
    public static void claim(QueuePolling polling, Duration bound) {
        long until = System.nanoTime() + bound.toNanos();
        while (!polling.claim()) {
            assertTrue(System.nanoTime() - until < 0, "the claim was not granted within " + bound.toSeconds() + " s");
            Thread.onSpinWait();
        }
    }
}
