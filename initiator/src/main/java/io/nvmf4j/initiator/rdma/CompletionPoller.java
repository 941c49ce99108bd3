package io.nvmf4j.initiator.rdma;

import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.WorkCompletion;
import java.util.concurrent.TimeUnit;

/**
 * The queue's completion thread: busy-polls the CQ ({@code Thread.onSpinWait}) for the spin budget, since a wake-up
 * costs far more than a polled round trip, then blocks for at most {@link #BLOCK_MILLIS}; every
 * {@link #TICK_NANOS} it gives the queue a tick for timeouts. One clock read per batch: it stamps the commands the
 * handlers resubmit on this thread.
 */
final class CompletionPoller {

    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int BLOCK_MILLIS = 20;

    /** What the poller drives (the queue). */
    interface Sink {
        /** Whether this poller's connection is still the current one. */
        boolean running();

        /**
         * One round at {@code now}: {@code n} completions (maybe 0), timeouts when {@code tick}, then the callbacks
         * collected under the lock.
         */
        void round(WorkCompletion[] wcs, int n, long now, boolean tick);

        void cqFailed(String reason);
    }

    private CompletionPoller() {
    }

    /** Starts a daemon platform thread polling {@code cq} for {@code sink}. */
    static Thread start(String threadName, CompletionQueue cq, int batch, long spinNanos, Sink sink) {
        Thread t = Thread.ofPlatform().daemon().name(threadName).unstarted(() -> loop(cq, batch, spinNanos, sink));
        t.start();
        return t;
    }

    private static void loop(CompletionQueue cq, int batch, long spinNanos, Sink sink) {
        WorkCompletion[] wcs = new WorkCompletion[batch];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        long nextTick = System.nanoTime() + TICK_NANOS;
        while (sink.running()) {
            int n = cq.poll(wcs);
            if (n == 0) {
                long spinUntil = System.nanoTime() + spinNanos;
                while (n == 0 && sink.running()) {
                    Thread.onSpinWait();
                    n = cq.poll(wcs);
                    if (n == 0 && System.nanoTime() - spinUntil >= 0) {
                        break;
                    }
                }
                if (n == 0) {
                    try {
                        n = cq.await(wcs, BLOCK_MILLIS, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException e) {
                        if (sink.running()) {
                            sink.cqFailed("completion queue failed: " + e);
                        }
                        return;
                    }
                }
            }
            long now = System.nanoTime();
            boolean tick = now - nextTick >= 0;
            if (tick) {
                nextTick = now + TICK_NANOS;
            }
            sink.round(wcs, n, now, tick);
        }
        sink.round(wcs, 0, System.nanoTime(), false);
    }
}
