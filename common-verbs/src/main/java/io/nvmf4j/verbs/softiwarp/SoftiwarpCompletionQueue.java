package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A completion ring of preallocated {@link WorkCompletion}s. Producers are the progress engines and posting
 * threads (a short lock); the consumer polls. {@link #await} spins {@code cqSpinNanos} then parks until a
 * producer unparks it.
 *
 * <p>Inline progress ({@code nvmf4j.softiwarp.inlineProgress}, on by default): a {@link #poll} that finds the ring
 * empty reads the sockets of the queue pairs attached to this queue itself, on the caller's thread, like
 * {@code spdk_nvmf_poll_group_poll()} polling its sockets. A busy consumer then sees a peer's message one
 * non-blocking {@code read} after it lands, without the progress engine in between: on a 2-core machine a second
 * spinning thread per process costs more than it gives (a thread wake-up costs far more than a polled round trip).
 * While this queue is polled the engine leaves its queue pairs alone and parks; a consumer about to block in
 * {@link #await} hands them back to the engine first, so one-sided operations (a peer's RDMA Read of our memory)
 * still progress while nobody polls.
 */
public final class SoftiwarpCompletionQueue implements CompletionQueue {
    private final WorkCompletion[] ring;
    private final long spinNanos;
    private long head;
    private long tail;
    private volatile long published;
    private volatile Thread waiter;
    /** What {@link #requestNotify} armed: run once by the next push (taken by a CAS, so exactly once). */
    private volatile Runnable notify;
    /** {@link #notify} while its handler runs. */
    private static final Runnable RUNNING = new Running();
    private static final VarHandle NOTIFY;

    static {
        try {
            NOTIFY = MethodHandles.lookup().findVarHandle(SoftiwarpCompletionQueue.class, "notify", Runnable.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private volatile boolean overflowed;
    private volatile boolean closed;

    /**
     * How recently a consumer must have polled for the engine to leave this queue's queue pairs to it, and so how
     * often a parked engine wakes to look ({@code nvmf4j.softiwarp.inlineActiveMicros}, default 1000). Every wake-up
     * of the engine preempts the poller it shares a core with, so a longer period shortens a pinned poll group's QD1
     * tail (bench/README.md "Where the QD1 tail comes from"). The library keeps 1 ms: a thread that polls several queues and then waits on one of them stops
     * polling the others without a hand-back, and their peers' one-sided operations wait this long each. nvmf4j's
     * own dedicated pollers (serve, perf) use 20 ms.
     */
    static final long INLINE_ACTIVE_NANOS =
            Math.max(1, Long.getLong("nvmf4j.softiwarp.inlineActiveMicros", 1000)) * 1000L;
    private final boolean inlineProgress;
    /** Queue pairs whose sockets this queue's consumer reads (copy on write: attach/detach are rare). */
    private volatile SoftiwarpQueuePair[] attached = new SoftiwarpQueuePair[0];
    /** System.nanoTime() of the last inline poll; 0 while nobody polls (the engine then drives the sockets). */
    private volatile long inlinePollNanos;
    /** The thread that polls inline (null when none): its own posts are deferred to its next poll. */
    private volatile Thread inlineThread;
    /** {@code nvmf4j.softiwarp.deferTx} (default true): batch an inline poller's own posts, see {@link #deferTx}. */
    static final boolean DEFER_TX = Boolean.parseBoolean(System.getProperty("nvmf4j.softiwarp.deferTx", "true"));
    /** Some attached queue pair has a deferred transmit. */
    private volatile boolean txPending;
    /**
     * The consumer that sleeps watching its queue pair's socket itself ({@link #requestNotifyWatching}), or null:
     * while it is set the engine leaves the socket to it however long it sleeps, and its own pushes (it reads the
     * socket inline once awake) do not run the handler armed for other threads' pushes.
     */
    private volatile Thread watcher;
    /** The descriptor {@link #watcher} waits on. */
    private volatile int watchFd = -1;

    SoftiwarpCompletionQueue(int entries, long spinNanos) {
        this(entries, spinNanos, false);
    }

    SoftiwarpCompletionQueue(int entries, long spinNanos, boolean inlineProgress) {
        this.inlineProgress = inlineProgress;
        ring = new WorkCompletion[entries];
        for (int i = 0; i < entries; i++) {
            ring[i] = new WorkCompletion();
        }
        this.spinNanos = spinNanos;
    }

    @Override
    public int capacity() {
        return ring.length;
    }

    /** Adds a completion; false (and {@link #overflowed()}) if the ring is full. */
    boolean push(long wrId, WcStatus status, WcOpcode opcode, int byteLength, int qpNumber, boolean invalidated,
                 int invalidatedRkey, int vendorError) {
        synchronized (this) {
            if (closed) {
                return false;
            }
            if (tail - head >= ring.length) {
                overflowed = true;
                return false;
            }
            WorkCompletion wc = ring[(int) (tail % ring.length)];
            wc.set(wrId, status, opcode, byteLength, qpNumber);
            if (invalidated) {
                wc.invalidated(invalidatedRkey);
            }
            if (vendorError != 0) {
                wc.vendorError(vendorError);
            }
            tail++;
            published = tail;
        }
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
        runNotify();
        return true;
    }

    /**
     * Runs the armed handler, if any, once: taken by a CAS to {@link #RUNNING} (Dekker with requestNotify, which
     * arms before it reads {@code published}; a push writes {@code published} before this read), given back to
     * null after it ran, so that {@link #cancelNotify} can wait for a run in progress.
     */
    private void runNotify() {
        Runnable n = notify;
        if (n != null && n != RUNNING && watcher != Thread.currentThread()
                && NOTIFY.compareAndSet(this, n, RUNNING)) {
            try {
                n.run();
            } finally {
                notify = null;
            }
        }
    }

    /** Waits out a handler that runs now (one short call: a write to an eventfd). */
    private void awaitNotifyRun() {
        while (notify == RUNNING) {
            Thread.onSpinWait();
        }
    }

    /**
     * Hands the attached queue pairs back to the engine (as a consumer blocking in {@link #await} does), then arms
     * {@code handler} for the next push: the engine reads the sockets while the consumer sleeps elsewhere, and the
     * push of what it reads calls the consumer back instead of unparking a waiter.
     */
    @Override
    public Notify requestNotify(Runnable handler) {
        handBack();
        awaitNotifyRun();
        notify = handler;
        // a push before the line above published first and saw no handler: look at the ring after arming
        if (published != head || closed) {
            return NOTIFY.compareAndSet(this, handler, null) ? Notify.READY : Notify.ARMED; // else: it ran
        }
        return Notify.ARMED;
    }

    /**
     * The consumer keeps reading its queue pair's socket and sleeps on the socket's readiness itself (its io_uring
     * watches {@link #waitDescriptor()}): no hand-back, so the engine's selector does not wake for the answer and
     * then wake the consumer in turn. The handler stays armed for what other threads push (a connection's end, its
     * flushed work requests). Only for one attached queue pair whose socket descriptor can be had and whose
     * transmit is not waiting for room (the engine's OP_WRITE serves that); otherwise {@link #requestNotify}.
     */
    @Override
    public Notify requestNotifyWatching(Runnable handler) {
        SoftiwarpQueuePair[] a = attached;
        if (!inlineProgress || a.length != 1 || !ChannelDescriptor.available()) {
            return requestNotify(handler);
        }
        SoftiwarpQueuePair qp = a[0];
        if (txPending) {
            flushDeferredTx();
        }
        int fd = qp.socketDescriptor();
        if (fd < 0 || !qp.watchable()) {
            return requestNotify(handler);
        }
        awaitNotifyRun();
        watchFd = fd;
        watcher = Thread.currentThread();
        inlineThread = watcher;
        inlinePollNanos = System.nanoTime();
        notify = handler;
        // a push before the line above published first and saw no handler: look at the ring after arming
        if ((published != head || closed) && NOTIFY.compareAndSet(this, handler, null)) {
            watcher = null;
            return Notify.READY;
        }
        return Notify.WATCHING; // (or it ran: the consumer wakes at once and polls)
    }

    @Override
    public int waitDescriptor() {
        return watcher == null ? -1 : watchFd;
    }

    /** Whether a consumer sleeps watching the socket itself (the engine then need not look for it often). */
    boolean watched() {
        return watcher != null;
    }

    /** Disarms; once it returns the handler neither runs nor will run (a run in progress is waited for). */
    @Override
    public void cancelNotify() {
        watcher = null;
        while (true) {
            Runnable n = notify;
            if (n == null) {
                return;
            }
            if (n == RUNNING) {
                Thread.onSpinWait();
            } else if (NOTIFY.compareAndSet(this, n, null)) {
                return;
            }
        }
    }

    /** Lets this queue's consumer drive {@code qp}'s socket (the queue pair is established). */
    void attach(SoftiwarpQueuePair qp) {
        if (!inlineProgress) {
            return;
        }
        synchronized (this) {
            SoftiwarpQueuePair[] a = attached;
            for (SoftiwarpQueuePair q : a) {
                if (q == qp) {
                    return;
                }
            }
            SoftiwarpQueuePair[] b = java.util.Arrays.copyOf(a, a.length + 1);
            b[a.length] = qp;
            attached = b;
        }
    }

    /** Stops driving {@code qp} (it has ended). */
    void detach(SoftiwarpQueuePair qp) {
        synchronized (this) {
            SoftiwarpQueuePair[] a = attached;
            int n = 0;
            SoftiwarpQueuePair[] b = new SoftiwarpQueuePair[a.length];
            for (SoftiwarpQueuePair q : a) {
                if (q != qp) {
                    b[n++] = q;
                }
            }
            if (n != a.length) {
                attached = java.util.Arrays.copyOf(b, n);
            }
        }
    }

    /** Whether a consumer polled this queue within {@link #INLINE_ACTIVE_NANOS} of {@code now}. */
    boolean inlineActive(long now) {
        if (watcher != null) {
            return true;
        }
        long t = inlinePollNanos;
        return t != 0 && now - t < INLINE_ACTIVE_NANOS;
    }

    /**
     * Defers {@code qp}'s transmit if the caller is this queue's inline poller (it will poll again: that is what a
     * poller does after handling completions); false if the caller must transmit now.
     */
    boolean deferTx(SoftiwarpQueuePair qp) {
        if (!DEFER_TX || inlineThread != Thread.currentThread() || watcher != null
                || !inlineActive(System.nanoTime())) {
            // not our poller, or one that has not polled lately (the engine may not know it stopped), or one that
            // watches the socket and may sleep again without a poll that would send it
            return false;
        }
        qp.txDeferred = true;
        txPending = true;
        return true;
    }

    private void flushDeferredTx() {
        txPending = false;
        for (SoftiwarpQueuePair qp : attached) {
            qp.flushDeferredTx();
        }
    }

    @Override
    public int poll(WorkCompletion[] out) {
        if (txPending) {
            flushDeferredTx();
        }
        if (published == head) {
            if (!inlineProgress || !progressInline() || published == head) {
                return 0;
            }
        } else if (inlineProgress) {
            // a consumer that drains what the engine pushed is polling too: say so, or the engine keeps its
            // sockets for as long as it keeps the ring non-empty (bench/tail.sh saw the engine keep a queue that
            // a never-sleeping consumer polled, both spinning on a 2-core machine)
            inlinePollNanos = System.nanoTime();
            inlineThread = Thread.currentThread();
        }
        return drain(out);
    }

    /** Moves ready completions out without touching any socket. */
    private int pollRing(WorkCompletion[] out) {
        return published == head ? 0 : drain(out);
    }

    private int drain(WorkCompletion[] out) {
        synchronized (this) {
            int n = 0;
            while (n < out.length && head < tail) {
                out[n++].copyFrom(ring[(int) (head % ring.length)]);
                head++;
            }
            return n;
        }
    }

    /** Reads the attached queue pairs' sockets on this thread; true if any made progress. */
    private boolean progressInline() {
        SoftiwarpQueuePair[] a = attached;
        if (a.length == 0) {
            return false;
        }
        inlinePollNanos = System.nanoTime();
        inlineThread = Thread.currentThread();
        boolean progress = false;
        for (SoftiwarpQueuePair qp : a) {
            if (qp.progressInline()) {
                progress = true;
            }
        }
        return progress;
    }

    /** The consumer stops polling: the progress engines take the attached queue pairs back. */
    private void handBack() {
        watcher = null;
        if (inlinePollNanos == 0) {
            return;
        }
        inlineThread = null;
        inlinePollNanos = 0;
        if (txPending) {
            flushDeferredTx();
        }
        for (SoftiwarpQueuePair qp : attached) {
            ProgressEngine e = qp.engine;
            if (e != null) {
                e.resume();
            }
        }
    }

    @Override
    public int await(WorkCompletion[] out, long timeout, TimeUnit unit) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + unit.toNanos(timeout);
        int n = poll(out);
        if (n > 0) {
            return n;
        }
        long spinEnd = start + Math.min(spinNanos, unit.toNanos(timeout));
        while (System.nanoTime() - spinEnd < 0) {
            Thread.onSpinWait();
            n = poll(out);
            if (n > 0) {
                return n;
            }
        }
        waiter = Thread.currentThread();
        handBack();
        try {
            while (true) {
                n = pollRing(out); // the engine has the sockets now
                if (n > 0 || closed) {
                    return n;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return 0;
                }
                LockSupport.parkNanos(this, remaining);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } finally {
            waiter = null;
        }
    }

    /** The marker {@link #RUNNING}: never run. */
    private static final class Running implements Runnable {
        @Override
        public void run() {
        }
    }

    @Override
    public boolean overflowed() {
        return overflowed;
    }

    @Override
    public void close() {
        closed = true;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
        runNotify(); // a consumer sleeping elsewhere sees the end too
    }
}
