package io.nvmf4j.target.rdma;

import io.nvmf4j.target.Port;
import io.nvmf4j.target.backend.BackendIo;
import io.nvmf4j.target.backend.BackendIoMode;
import io.nvmf4j.target.backend.BackendSettings;
import io.nvmf4j.target.poll.SpinBudget;
import io.nvmf4j.uring.IoUringException;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * One poll-group thread (SPDK's {@code spdk_nvmf_rdma_poll_group}): it owns a set of queue pairs, ONE completion
 * queue shared by all of them, and a pool of registered data buffers, and runs every request of its queues to
 * completion without locks. It busy-polls the completion queue while there is work and for a spin budget after
 * ({@link SpinBudget}: a thread woken from a blocking wait answers later than one that polls), then blocks in
 * {@link CompletionQueue#await}. Work from other threads (a new queue's disconnect listener, an Asynchronous Event
 * Request completing on a timer thread, shutdown) arrives through {@link #execute(Runnable)}, which interrupts the
 * thread only while it is blocked.
 */
final class PollGroup implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(PollGroup.class.getName());
    /**
     * Completions taken per round: each round ends in one {@code io_uring_enter} for the file and block-device I/O its
     * commands prepared, so this is also how many commands reach the disk together. With 32, a QD32 host's commands
     * travelled as one convoy: a virtual disk completed all 32 at once and sat empty ~240 us until all 32 came back and
     * were submitted in one call; rounds of 8 let it start on the first while the rest are parsed
     * (bench/README "Where a write batch waits": 4K randwrite QD32 on a disk 1.18x, RAM 4K QD32 1.03-1.06x).
     */
    private static final int BATCH = 8;
    /** How often timeouts are checked, busy or idle (connect and Read timeouts are seconds; this is their grain). */
    private static final long HOUSEKEEPING_NANOS = 100_000_000L;
    /** How long shutdown waits for backend operations still running before it gives up on their memory. */
    private static final long BACKEND_DRAIN_NANOS = 10_000_000_000L;

    private final int id;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    /** The registered data buffers and the requests waiting for one. */
    private final PendingBuffers buffers;
    private final TransportObserver observer;
    private final WorkCompletion[] completions = new WorkCompletion[BATCH];
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** This group's asynchronous file and block-device I/O (its io_uring, or the namespaces' workers). */
    private final BackendIo backendIo;
    /** When the loop stops spinning and blocks. */
    private final SpinBudget spin;
    private final long backendTimeoutNanos;
    private final Object sleepLock = new Object();
    private final Thread thread;
    private volatile boolean running = true;
    private boolean sleeping;
    /** System.nanoTime() when the current batch of completions was reaped: one clock read per batch. */
    private long batchNanos;
    /** Polls that reaped completions / found none, for the operator's snapshot. */
    private final PollCounts polls = new PollCounts();

    /** The queues of this group by slot, and their completion-queue room. */
    private final QueueSlotTable table;

    private final HostileLog hostileLog;
    private final long connectTimeoutNanos;
    private final long readTimeoutNanos;
    private final long queueBufferLimit;
    private long nextHousekeeping;
    /** Failures caught in the loop outside any one connection (logged once each kind, counted). */
    private boolean loopFailureLogged;

    PollGroup(int id, RdmaDevice device, ProtectionDomain pd, RdmaTransportOptions options, long largestTransfer,
              TransportObserver observer, UnconnectedPeers peers, HostileLog hostileLog, BackendSettings backend)
            throws VerbsException {
        this.id = id;
        this.pd = pd;
        this.observer = observer;
        this.hostileLog = hostileLog;
        this.connectTimeoutNanos = options.connectTimeout().toNanos();
        this.readTimeoutNanos = options.readTimeout().toNanos();
        for (int i = 0; i < BATCH; i++) {
            completions[i] = new WorkCompletion();
        }
        this.cq = device.createCompletionQueue(options.completionQueueEntries());
        BufferPool pool;
        try {
            pool = new BufferPool(pd, options.bufferPoolBytes(), largestTransfer);
        } catch (VerbsException | RuntimeException e) {
            cq.close();
            throw e;
        }
        this.buffers = new PendingBuffers(pool);
        try {
            this.backendIo = BackendIo.open(backend.mode(), backend.ringEntries(), "poll group " + id);
        } catch (IoUringException e) {
            pool.close();
            cq.close();
            throw new IllegalStateException("poll group " + id + ": cannot set up io_uring: " + e.getMessage(), e);
        }
        backendIo.registerBuffers(pool.memory());
        this.spin = new SpinBudget(options.spinBudget().toNanos(), backendIo.mode() == BackendIoMode.THREADS,
                System.nanoTime());
        this.backendTimeoutNanos = backend.timeout().toNanos();
        this.table = new QueueSlotTable(cq.capacity(), peers, options.maxUnconnectedPerGroup());
        this.queueBufferLimit = options.queueBufferLimit(pool.capacity(), pool.largestBlock());
        this.thread = new Thread(this::run, "nvmf4j-poll-group-" + id);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    int id() {
        return id;
    }

    ProtectionDomain protectionDomain() {
        return pd;
    }

    CompletionQueue completionQueue() {
        return cq;
    }

    TransportObserver observer() {
        return observer;
    }

    MemoryRegion poolRegion() {
        return buffers.region();
    }

    /** The largest data transfer a queue on {@code port} may ask for: MDTS, capped by the largest buffer. */
    long maxTransfer(Port port) {
        return Math.min(port.maxDataTransferBytes(), buffers.pool().largestBlock());
    }

    /** The most pool memory one queue may hold ({@link RdmaTransportOptions#queueBufferBytes()}). */
    long queueBufferLimit() {
        return queueBufferLimit;
    }

    /** Logs (once per connection, rate-limited) and counts a refused or ended peer. */
    void reportRejected(RejectReason reason, String detail) {
        observer.peerRejected(reason);
        hostileLog.log(reason, "poll group " + id, detail);
    }

    /** The poll thread's id (tests measure its allocations). */
    long threadId() {
        return thread.threadId();
    }

    long batchNanos() {
        return batchNanos;
    }

    boolean isPollThread() {
        return Thread.currentThread() == thread;
    }

    int queueCount() {
        return table.queueCount();
    }

    // ---- queue registration (accepting threads) ----

    /**
     * Reserves a slot and the completion-queue room of a queue's Connect phase ({@link QueueSizing#CONNECT_RECEIVES}
     * receives; the rest of its depth is reserved when its Connect runs), and counts it as unconnected for this
     * group and for {@code peer}; or says why not (the connection is then refused with NO_RSC).
     */
    SlotReservation reserve(int recvEntries, java.net.InetAddress peer) {
        return running ? table.reserve(recvEntries, peer) : SlotReservation.Refused.NO_ROOM;
    }

    /** Changes a slot's completion-queue reservation to {@code need} entries; false (unchanged) if no room. */
    boolean resizeReservation(int slot, int need) {
        return table.resizeReservation(slot, need);
    }

    /** The slot's queue completed Connect (or is gone): it no longer counts as unconnected. Idempotent. */
    void leaveUnconnected(int slot) {
        table.leaveUnconnected(slot);
    }

    /** Publishes a queue in its reserved slot; completions for it are dispatched from now on. */
    void register(RdmaQueue queue) {
        table.register(queue);
    }

    /** Gives back a reservation (and the slot's queue, if registered). */
    void unreserve(int slot) {
        table.unreserve(slot);
    }

    // ---- buffers (poll thread) ----

    /** The data buffers and the requests waiting for one (each queue's {@link QueueBufferQuota} draws on them). */
    PendingBuffers buffers() {
        return buffers;
    }

    void freeBuffer(RdmaRequest r) {
        buffers.free(r);
    }

    /**
     * A timed-out backend operation keeps the pool buffer {@code r} was given: the request forgets it (its response
     * goes out without data), and the returned task frees it on this thread when the operation really ends; null when
     * {@code r} holds no buffer.
     */
    Runnable detachBuffer(RdmaRequest r) {
        return buffers.detach(r);
    }

    BackendIo backendIo() {
        return backendIo;
    }

    /**
     * Something threw while serving {@code q} outside the per-completion catch: nothing that one connection causes
     * may end the poll-group thread (it serves every other queue), so that connection ends, logged once with the
     * failure and counted as an internal error.
     */
    void failed(RdmaQueue q, RuntimeException e) {
        if (q.state() == RdmaQueue.State.LIVE) {
            LOG.log(Level.ERROR, q + ": unexpected failure; closing the connection", e);
        }
        try {
            q.reject(RejectReason.INTERNAL_ERROR, "internal error: " + e);
        } catch (RuntimeException again) {
            LOG.log(Level.ERROR, "{0}: teardown failed too ({1}); releasing", q, again.toString());
            try {
                q.releaseResources();
            } catch (RuntimeException ignored) {
                // the slot stays taken; the thread goes on
            }
        }
    }

    /** Removes (and releases) the waiting requests of a queue that is going away. */
    void dropWaiters(QueueCloser queue) {
        buffers.dropWaiters(queue);
    }

    long bufferBytesFree() {
        return buffers.pool().bytesFree();
    }

    /** The operator's snapshot of this group (any thread; racy-but-whole opaque reads, see {@link PollGroupStats}). */
    PollGroupStats stats() {
        return new PollGroupStats(id, polls.busy(), polls.idle(),
                buffers.pool().bytesFree(), buffers.pool().capacity(), queueCount());
    }

    // ---- the loop ----

    /** Runs {@code task} on the poll thread (soon; never inline). */
    void execute(Runnable task) {
        tasks.add(task);
        synchronized (sleepLock) {
            if (sleeping) {
                thread.interrupt();
            }
        }
    }

    private void run() {
        long start = System.nanoTime();
        spin.worked(start);
        nextHousekeeping = start + HOUSEKEEPING_NANOS;
        while (running) {
            try {
                iterate();
            } catch (RuntimeException e) {
                // last line of defence: a failure not tied to one connection is logged (once) and the loop goes on
                observer.peerRejected(RejectReason.INTERNAL_ERROR);
                if (!loopFailureLogged) {
                    loopFailureLogged = true;
                    LOG.log(Level.ERROR, "poll group " + id + ": unexpected failure in the poll loop", e);
                } else {
                    LOG.log(Level.WARNING, "poll group {0}: unexpected failure in the poll loop: {1}", id,
                            e.toString());
                }
            }
        }
        runTasks();
    }

    /** One round of the poll loop: tasks, completions, buffer waiters, timeouts; then spin or block. */
    private void iterate() {
        boolean worked = runTasks();
        int n = cq.poll(completions);
        polls.count(n);
        if (n > 0) {
            batchNanos = System.nanoTime();
            dispatch(n);
            worked = true;
        }
        // one io_uring_enter for what the completions just submitted; then what the backend finished
        if (backendIo.poll() > 0) {
            worked = true;
        }
        if (worked) {
            runBufferWaiters();
            long lastWork = n > 0 ? batchNanos : System.nanoTime();
            spin.worked(lastWork);
            if (lastWork - nextHousekeeping >= 0) {
                housekeeping(lastWork);
            }
            return;
        }
        long now = System.nanoTime();
        boolean backendBusy = backendIo.inFlight() > 0;
        if (spin.spin(now, backendBusy)) {
            return;
        }
        if (now - nextHousekeeping >= 0) {
            housekeeping(now);
        }
        synchronized (sleepLock) {
            if (!tasks.isEmpty() || !running) {
                return;
            }
            sleeping = true;
        }
        try {
            n = cq.await(completions, SpinBudget.blockMillis(backendBusy), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            n = 0;
        } finally {
            synchronized (sleepLock) {
                sleeping = false;
            }
            Thread.interrupted(); // an interrupt is only a wake-up; never let it reach backend I/O
        }
        polls.count(n);
        if (n > 0) {
            batchNanos = System.nanoTime();
            dispatch(n);
            runBufferWaiters();
            spin.worked(batchNanos);
        }
    }

    /** Overdue teardowns, connect timeouts, RDMA Read timeouts; each queue on its own (one failure ends one). */
    private void housekeeping(long now) {
        nextHousekeeping = now + HOUSEKEEPING_NANOS;
        backendIo.expire(now, backendTimeoutNanos);
        reapOverdueTeardowns(now);
        for (RdmaQueue q : table.snapshot()) {
            if (q != null) {
                try {
                    q.checkTimeouts(now, connectTimeoutNanos, readTimeoutNanos);
                } catch (RuntimeException e) {
                    failed(q, e);
                }
            }
        }
    }

    private boolean runTasks() {
        boolean any = false;
        Runnable t;
        while ((t = tasks.poll()) != null) {
            any = true;
            try {
                t.run();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "poll group " + id + ": task failed", e);
            }
        }
        return any;
    }

    private void dispatch(int n) {
        RdmaQueue[] s = table.snapshot();
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = completions[i];
            long wrId = wc.wrId();
            int slot = WorkRequestIds.slot(wrId);
            RdmaQueue q = slot < s.length ? s[slot] : null;
            if (q == null) {
                s = table.snapshot(); // a queue registered after we read the array
                q = slot < s.length ? s[slot] : null;
            }
            if (q == null || q.generation != WorkRequestIds.generation(wrId) || q.state() == RdmaQueue.State.RELEASED) {
                if (LOG.isLoggable(Level.DEBUG)) {
                    LOG.log(Level.DEBUG, "poll group {0}: completion for a queue that is gone: {1}", id, wc);
                }
                continue;
            }
            try {
                q.onCompletion(wc, WorkRequestIds.kind(wrId), WorkRequestIds.index(wrId));
            } catch (RuntimeException e) {
                // nothing from the network may take the poll group down: end this connection only
                failed(q, e);
            }
        }
    }

    /**
     * Freed buffers go to the requests waiting for one, oldest first, and each request given one is run on here, from
     * the loop, as SPDK's poller enters {@code nvmf_rdma_request_process()} again for its pending requests. What a
     * request run here frees goes to the next waiter at once.
     */
    private void runBufferWaiters() {
        buffers.serveWaiters();
        for (RdmaRequest r = buffers.nextAssigned(); r != null; r = buffers.nextAssigned()) {
            RdmaQueue q = r.queue;
            try {
                q.process(r);
            } catch (RuntimeException e) {
                failed(q, e);
            }
            buffers.serveWaiters();
        }
    }

    private void reapOverdueTeardowns(long now) {
        RdmaQueue[] s = table.snapshot();
        for (RdmaQueue q : s) {
            if (q != null && q.teardownOverdue(now)) {
                LOG.log(Level.WARNING, "{0}: flushes did not arrive in time; releasing anyway", q);
                try {
                    q.releaseResources();
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, "{0}: releasing failed: {1}", q, e.toString());
                    unreserve(q.slot); // never look at it again
                }
            }
        }
    }

    /** Live queues of this group (a snapshot, for shutdown). */
    List<RdmaQueue> queues() {
        return table.queues();
    }

    /**
     * Closes every connection, waits (up to {@code timeoutMillis}) for their flushes, stops the thread, frees the
     * pool and the completion queue.
     */
    void shutdown(long timeoutMillis) {
        execute(() -> {
            for (RdmaQueue q : queues()) {
                q.beginTeardown("target shutting down");
            }
        });
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (queueCount() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        execute(() -> {
            for (RdmaQueue q : queues()) {
                q.releaseResources();
            }
        });
        running = false;
        execute(() -> { });
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.log(Level.WARNING, "poll group {0}: thread did not stop; leaving its memory allocated", id);
            return;
        }
        // the loop has stopped: this thread owns the backend I/O now; the kernel or a worker may still use buffers
        long end = System.nanoTime() + BACKEND_DRAIN_NANOS;
        while (backendIo.inFlight() > 0 && System.nanoTime() < end) {
            if (backendIo.poll() == 0) {
                Thread.onSpinWait();
            }
        }
        boolean drained = backendIo.inFlight() == 0;
        backendIo.close();
        if (drained) {
            buffers.pool().close();
        } else {
            LOG.log(Level.WARNING, "poll group {0}: backend operations still running after {1} s; their buffers stay "
                    + "allocated", id, BACKEND_DRAIN_NANOS / 1_000_000_000L);
        }
        cq.close();
    }

    @Override
    public void close() {
        shutdown(2000);
    }
}
