package io.nvmf4j.initiator.rdma;

import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.WorkCompletion;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When a queue's completion thread stops spinning and blocks: after its spin budget when nothing is outstanding,
 * after at least {@link CompletionPoller#OUTSTANDING_SPIN_NANOS} while commands await their completions (a disk
 * behind the target answers later than the idle budget lasts), and at once when its budget is 0, whatever is
 * outstanding. The completion queue here never completes anything; the test watches for the first blocking wait.
 */
@Timeout(30)
class CompletionPollerSpinTest {

    /**
     * A completion queue with nothing in it that records its polls and its first blocking wait, timed from its first
     * poll (the spin starts after it).
     */
    private static final class SilentQueue implements CompletionQueue {
        final AtomicLong firstPoll = new AtomicLong();
        final AtomicInteger pollsBeforeWait = new AtomicInteger();
        final AtomicLong firstWaitNanos = new AtomicLong(-1);
        final CountDownLatch waited = new CountDownLatch(1);

        @Override
        public int capacity() {
            return 16;
        }

        @Override
        public int poll(WorkCompletion[] out) {
            if (firstWaitNanos.get() < 0 && pollsBeforeWait.getAndIncrement() == 0) {
                firstPoll.set(System.nanoTime());
            }
            return 0;
        }

        @Override
        public int await(WorkCompletion[] out, long timeout, TimeUnit unit) throws InterruptedException {
            if (firstWaitNanos.compareAndSet(-1, System.nanoTime() - firstPoll.get())) {
                waited.countDown();
            }
            Thread.sleep(unit.toMillis(timeout));
            return 0;
        }

        @Override
        public boolean overflowed() {
            return false;
        }

        @Override
        public void close() {
        }
    }

    /** A queue whose commands are outstanding or not, until it stops. */
    private static final class Queue implements CompletionPoller.Sink {
        private final boolean outstanding;
        private volatile boolean stopped;

        Queue(boolean outstanding) {
            this.outstanding = outstanding;
        }

        @Override
        public boolean running() {
            return !stopped;
        }

        @Override
        public boolean awaitsCompletions() {
            return outstanding;
        }

        @Override
        public void round(WorkCompletion[] wcs, int n, long now, boolean tick) {
        }

        @Override
        public void cqFailed(String reason) {
        }

        void stop() {
            stopped = true;
        }
    }

    /** Runs a poller with {@code spinNanos} over a silent queue until its first blocking wait. */
    private static SilentQueue untilFirstWait(long spinNanos, boolean outstanding) throws Exception {
        SilentQueue cq = new SilentQueue();
        Queue sink = new Queue(outstanding);
        Thread t = CompletionPoller.start("spin-test", cq, 4, spinNanos, sink, new PollingClaim(null, cq, sink, 4));
        try {
            assertTrue(cq.waited.await(10, TimeUnit.SECONDS), "the poller never blocked");
        } finally {
            sink.stop();
            t.join(5_000);
        }
        return cq;
    }

    @Test
    void withCommandsOutstandingThePollerSpinsAtLeastAMillisecondBeforeItBlocks() throws Exception {
        long budget = TimeUnit.MICROSECONDS.toNanos(200);
        SilentQueue cq = untilFirstWait(budget, true);
        assertTrue(cq.firstWaitNanos.get() >= CompletionPoller.OUTSTANDING_SPIN_NANOS,
                "blocked after " + cq.firstWaitNanos.get() + " ns with commands outstanding");
    }

    @Test
    void withNothingOutstandingThePollerSpinsItsOwnBudgetOnly() throws Exception {
        long budget = TimeUnit.MICROSECONDS.toNanos(200);
        SilentQueue cq = untilFirstWait(budget, false);
        assertTrue(cq.firstWaitNanos.get() >= budget, "blocked after " + cq.firstWaitNanos.get() + " ns");
    }

    @Test
    void aBudgetOfZeroBlocksAtOnceEvenWithCommandsOutstanding() throws Exception {
        SilentQueue cq = untilFirstWait(0, true);
        // the first poll, then the one empty round a spin of no length makes: no spinning beyond it
        assertEquals(2, cq.pollsBeforeWait.get(), "polls before the first wait");
    }
}
