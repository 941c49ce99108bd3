package io.nvmf4j.cli.perf;

import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.QueuePolling;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fewer polling threads than I/O queues: each thread takes the completion polling of several queues
 * ({@link NvmeController#queuePolling}) and polls them in turn, as spdk_nvme_perf's one thread per core polls the
 * {@code -P} queue pairs it owns. Without it every queue's own completion thread spins, and two spinning threads on
 * one core (perf under {@code taskset -c 1} with {@code -P 2}) take turns by the scheduler's time slice: a completion
 * waits for its thread's next slice, milliseconds at QD32 instead of microseconds.
 *
 * <p>Thread {@code t} of {@code n} polls queues {@code t, t + n, t + 2n, ...}. A queue that reconnects gives its
 * polling back to its new completion thread; the poller claims it again. {@link #close} releases every queue.
 */
final class QueuePollers implements AutoCloseable {

    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;
    /** Queues a poller holds now (a claim granted and not lost since). */
    private final AtomicInteger held = new AtomicInteger();
    private int queues;

    private QueuePollers() {
    }

    /** Starts {@code threads} pollers over the first {@code queues} I/O queues of {@code controller}. */
    static QueuePollers start(NvmeController controller, int queues, int threads) {
        QueuePollers p = new QueuePollers();
        p.queues = queues;
        for (int t = 0; t < threads; t++) {
            List<QueuePolling> mine = new ArrayList<>();
            for (int q = t; q < queues; q += threads) {
                mine.add(controller.queuePolling(q));
            }
            QueuePolling[] polling = mine.toArray(QueuePolling[]::new);
            Thread thread = Thread.ofPlatform().daemon().name("nvmf4j-perf-poller-" + t)
                    .unstarted(() -> p.loop(polling));
            p.threads.add(thread);
            thread.start();
        }
        return p;
    }

    private void loop(QueuePolling[] polling) {
        boolean[] held = new boolean[polling.length];
        try {
            while (running) {
                int handled = 0;
                for (int i = 0; i < polling.length; i++) {
                    if (!held[i]) {
                        held[i] = polling[i].claim();
                        if (held[i]) {
                            this.held.incrementAndGet();
                        }
                        continue;
                    }
                    int n = polling[i].poll();
                    if (n < 0) {
                        held[i] = false; // given back (a reconnect): claim the new connection's polling
                        this.held.decrementAndGet();
                    } else {
                        handled += n;
                    }
                }
                if (handled == 0) {
                    Thread.onSpinWait();
                }
            }
        } finally {
            for (QueuePolling q : polling) {
                q.release();
            }
        }
    }

    /**
     * Waits up to {@code millis} until the pollers hold every queue (a claim is granted at the queue's completion
     * thread's next round); true when they do. Completions before that run on the queues' own threads.
     */
    boolean awaitHeld(long millis) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (held.get() < queues) {
            if (System.nanoTime() - until >= 0) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }

    /** Stops the pollers once they released their queues to the queues' own completion threads. */
    @Override
    public void close() {
        running = false;
        boolean interrupted = false;
        for (Thread t : threads) {
            while (t.isAlive()) {
                try {
                    t.join(); // a round of polls never blocks: the thread sees running at once
                } catch (InterruptedException e) {
                    interrupted = true; // the queues must be given back before the caller goes on
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The pollers a run of {@code queues} queues gets when {@code asked} is 0: one per CPU this process may run on,
     * at most one per queue ({@code Runtime.availableProcessors()} follows the affinity mask that taskset sets).
     */
    static int defaultThreads(int queues, int asked) {
        return asked > 0 ? Math.min(asked, queues) : Math.min(queues, Runtime.getRuntime().availableProcessors());
    }
}
