package io.nvmf4j.target.backend;

import java.lang.System.Logger.Level;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One namespace's share of backend work: the bound on its operations in flight (over every poll group) and the
 * worker threads that run what the ring cannot (nvmet's {@code buffered_io} work queue, one per namespace, is the
 * anchor). A namespace that stops answering (a hung NFS file) fills only its own bound and its own workers; other
 * namespaces, and the poll groups, go on. Threads start on first use and are daemon threads named
 * {@code nvmf4j-backend-<name>-<n>}.
 */
public final class BackendWorkers {

    private static final System.Logger LOG = System.getLogger(BackendWorkers.class.getName());

    /** Default bound on one namespace's operations in flight: a queue depth of 128, as nvmet's default queue size. */
    public static final int DEFAULT_LIMIT = 128;
    /** Default worker threads per namespace. */
    public static final int DEFAULT_THREADS = 4;

    private final String name;
    private final int limit;
    private final int threadCount;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ReadLatencyGuard guard = new ReadLatencyGuard();
    private final ArrayBlockingQueue<BackendSlot> queue;
    private Thread[] threads;
    private volatile boolean closed;

    public BackendWorkers(String name, int limit, int threads) {
        if (limit < 1 || threads < 1) {
            throw new IllegalArgumentException("backend limit and threads must be at least 1");
        }
        this.name = name;
        this.limit = limit;
        this.threadCount = threads;
        // every slot queued here holds one unit of inFlight, so the queue never refuses one
        this.queue = new ArrayBlockingQueue<>(limit);
    }

    /** The most operations of this namespace in flight at once. */
    public int limit() {
        return limit;
    }

    /** What keeps this namespace's reads from waiting behind its writes. */
    ReadLatencyGuard guard() {
        return guard;
    }

    /** Operations of this namespace in flight now (on a ring or a worker). */
    public int inFlight() {
        return inFlight.get();
    }

    /** Takes one unit of the bound; false when the namespace is at its limit (the caller waits). */
    boolean tryAcquire() {
        while (true) {
            int n = inFlight.get();
            if (n >= limit) {
                return false;
            }
            if (inFlight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    void release() {
        inFlight.decrementAndGet();
    }

    /** Runs {@code slot} on a worker; its engine hears of the end through {@link BackendIo#workerDone}. */
    void execute(BackendSlot slot) {
        if (closed) {
            slot.result = -LinuxCalls.ESHUTDOWN;
            slot.io.workerDone(slot);
            return;
        }
        start();
        if (!queue.offer(slot)) {
            // cannot happen while callers hold a unit of the bound per slot; never lose the operation
            slot.result = -LinuxCalls.EAGAIN;
            slot.io.workerDone(slot);
        }
    }

    private synchronized void start() {
        if (threads != null) {
            return;
        }
        threads = new Thread[threadCount];
        for (int i = 0; i < threadCount; i++) {
            Thread t = new Thread(this::work, "nvmf4j-backend-" + name + "-" + i);
            t.setDaemon(true);
            threads[i] = t;
            t.start();
        }
    }

    private void work() {
        while (!closed) {
            BackendSlot slot;
            try {
                slot = queue.take();
            } catch (InterruptedException e) {
                continue;
            }
            int result;
            try {
                result = slot.backend.runBlocking(slot.op, slot.pieceOffset(), slot.piece, slot.pieceBuffer());
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "backend " + name + ": " + slot.op + " failed unexpectedly", e);
                result = -LinuxCalls.EIO;
            }
            slot.result = result;
            slot.io.workerDone(slot);
        }
    }

    /** Stops the workers; operations still queued end with ESHUTDOWN. */
    public synchronized void close() {
        closed = true;
        if (threads != null) {
            for (Thread t : threads) {
                t.interrupt();
            }
        }
        BackendSlot slot;
        while ((slot = queue.poll()) != null) {
            slot.result = -LinuxCalls.ESHUTDOWN;
            slot.io.workerDone(slot);
        }
    }
}
