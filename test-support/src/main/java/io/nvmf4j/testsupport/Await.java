package io.nvmf4j.testsupport;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waiting in a test for an event that another thread makes happen: the condition is polled until it holds or the
 * bound passes, and then the test fails naming what did not happen. A test waits for the event it checks, never
 * for a fixed time.
 */
public final class Await {
    private static final long POLL_MILLIS = 5;

    private Await() {
    }

    /** Returns once {@code condition} holds; fails with "{@code what} not within {@code limit}" after it. */
    public static void until(BooleanSupplier condition, Duration limit, String what) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + ": not within " + limit.toMillis() + " ms");
            }
            Thread.sleep(POLL_MILLIS);
        }
    }
}
