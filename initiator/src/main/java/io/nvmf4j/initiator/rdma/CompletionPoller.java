package io.nvmf4j.initiator.rdma;

import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.WorkCompletion;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The queue's completion thread (unless it has lent the CQ to a thread that polls it itself, {@link PollingClaim}):
 * busy-polls the CQ ({@code Thread.onSpinWait}, then {@code Thread.yield} once
 * {@link #YIELD_AFTER_NANOS} passed without a completion; on cores of its own only while its pollers outnumber them)
 * for the spin budget, since a wake-up costs far more than a polled round trip, and for at least
 * {@link #OUTSTANDING_SPIN_NANOS} while commands await their completions; then blocks for at most
 * {@link #BLOCK_MILLIS}; every
 * {@link #TICK_NANOS} it gives the queue a tick for timeouts. One clock read per batch: it stamps the commands the
 * handlers resubmit on this thread.
 */
final class CompletionPoller {

    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int BLOCK_MILLIS = 20;
    /**
     * After this long without a completion the spin yields the core ({@code sched_yield}) on every empty poll
     * instead of only pausing: two queues' pollers sharing a core (perf -P 2 on 2 cores, an application with more
     * queues than cores) then hand the core to each other at once instead of each spinning a scheduler slice
     * while the other's completions wait. Measured pinned, perf on one core, 6 s runs: 4 KiB randread 16 x 2
     * queues 266,833 IOPS without, 396,934-451,565 with (after 2 or 10 us alike), p99 4,065 -> 156-179 us;
     * randwrite 272,217 -> 418,424 (2 us); one queue: QD32 unchanged within noise (404,694-444,361 without,
     * 416,837-455,777 with); QD1 a little better (4 alternating runs each: p50 9.2-9.6 us with, 9.5-10.0 without;
     * p99 12.4-13.7 with, 14.2-23.3 without: the core is handed at once to the JVM's other threads).
     */
    static final long YIELD_AFTER_NANOS = 10_000;

    /**
     * The least a poller spins while commands of its queue await completions, unless its budget is 0 (it blocks at
     * once, as asked): the target's poll group spins as long while its backend I/O runs ({@code SpinBudget}). The
     * idle budget (200 us for perf) is shorter than a disk behind the target takes for a QD32 batch (0.2-0.5 ms);
     * a poller that blocks just before the batch's responses arrive leaves them to the softiwarp engine, which
     * wakes it 100-200 us later, while the disk idles (bench/README.md, "The host's poller asleep in the convoy").
     * Bounded: while a target that has stopped answering holds the commands, each spin is followed by a blocking
     * wait of {@link #BLOCK_MILLIS}, so the poller takes about 1 ms of every 21 until the commands time out.
     */
    static final long OUTSTANDING_SPIN_NANOS = 1_000_000;

    /**
     * The cores this process may run on: its affinity mask and cgroup quota, read once at start.
     */
    static final int CORES = Runtime.getRuntime().availableProcessors();

    /**
     * Whether this process was given cores of its own (taskset to fewer than the machine's online CPUs, as perf is
     * in the project's benchmarks, or as an SPDK reactor owns its core): its pollers then yield only while more of
     * them spin than it has cores. {@code sched_yield} hands the core to any runnable thread, another process's too,
     * and that thread then keeps it for a scheduler slice (a millisecond or more) whatever its nice level: a QD1
     * reader pinned to a core that a nice-19 writer shared yielded on every read slower than 10 us, and its p99
     * went from 72.7 us alone to 482 us beside the writer (bench/latency-pair.sh writer19, RAM) while the same
     * placement in C, a reader that never yields, stayed at 1.0x. A process that shares every core with the rest
     * of the machine (unpinned, a target on the same host) keeps yielding: there the thread it yields to is most
     * often the one whose answer it waits for, and bench/run's unpinned rows lost 10-29% without it.
     */
    static final boolean OWN_CORES = CORES < OnlineCpus.count();

    /** This process's pollers that are spinning now (between an empty poll and a completion or a block). */
    private static final AtomicInteger SPINNING = new AtomicInteger();

    /** What the poller drives (the queue). */
    interface Sink {
        /** Whether this poller's connection is still the current one. */
        boolean running();

        /** Whether commands on this connection wait for their completions (read once per spin). */
        boolean awaitsCompletions();

        /**
         * One round at {@code now}: {@code n} completions (maybe 0), timeouts when {@code tick}, then the callbacks
         * collected under the lock.
         */
        void round(WorkCompletion[] wcs, int n, long now, boolean tick);

        void cqFailed(String reason);
    }

    private CompletionPoller() {
    }

    /**
     * Starts a daemon platform thread polling {@code cq} for {@code sink}; before each poll it lends the CQ to a
     * thread that has asked through {@code claim} (and parks while that thread has it).
     */
    static Thread start(String threadName, CompletionQueue cq, int batch, long spinNanos, Sink sink,
            PollingClaim claim) {
        Thread t = Thread.ofPlatform().daemon().name(threadName).unstarted(
                () -> loop(cq, batch, spinNanos, sink, claim));
        t.start();
        return t;
    }

    /** How long an empty poll is followed by spinning: see {@link #OUTSTANDING_SPIN_NANOS}. */
    static long spinBudget(long spinNanos, boolean awaitsCompletions) {
        return spinNanos > 0 && awaitsCompletions ? Math.max(spinNanos, OUTSTANDING_SPIN_NANOS) : spinNanos;
    }

    @SuppressWarnings("ThreadPriorityCheck") // a bounded back-off after spinning, not a priority: lets a descheduled peer run on a small host
    private static void loop(CompletionQueue cq, int batch, long spinNanos, Sink sink, PollingClaim claim) {
        WorkCompletion[] wcs = new WorkCompletion[batch];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        long nextTick = System.nanoTime() + TICK_NANOS;
        while (sink.running()) {
            if (claim.grantAndPark()) {
                nextTick = System.nanoTime() + TICK_NANOS; // the claimant ticked meanwhile
                continue;
            }
            int n = cq.poll(wcs);
            if (n == 0) {
                long spinStart = System.nanoTime();
                long spinUntil = spinStart + spinBudget(spinNanos, sink.awaitsCompletions());
                long yieldFrom = spinStart + YIELD_AFTER_NANOS;
                long now = spinStart;
                SPINNING.incrementAndGet();
                try {
                    while (n == 0 && sink.running() && !claim.requested()) {
                        if (now - yieldFrom >= 0 && (!OWN_CORES || SPINNING.get() > CORES)) {
                            Thread.yield();
                        } else {
                            Thread.onSpinWait();
                        }
                        n = cq.poll(wcs);
                        now = System.nanoTime();
                        if (n == 0 && now - spinUntil >= 0) {
                            break;
                        }
                    }
                } finally {
                    SPINNING.decrementAndGet();
                }
                if (n == 0 && claim.requested()) {
                    continue; // grant it now rather than after the wait below
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
