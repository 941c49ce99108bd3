package io.nvmf4j.initiator.rdma;

import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.WorkCompletion;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One connection's completion polling, lent to another thread: the thread that submits on the queue polls its CQ
 * itself, so a completion is handled, and its callback run, where the next command is made, with no hand-off
 * between threads (SPDK's model: a qpair is polled by the thread that owns it, e.g. its ublk target polls the
 * ublk rings and the bdevs on one reactor). A ublk queue thread claims its NVMe queue this way.
 *
 * <p>The CQ has one poller at a time. A claimant asks ({@link #request}); the queue's completion thread grants it at
 * its next poll, makes the claimant the queue's poller ({@code QueueState.poller}, so the queue's no-allocation
 * paths apply to it), and parks; the claimant polls ({@link #poll}) until it gives the CQ back ({@link #release}),
 * which unparks the completion thread. A claim lives as long as its connection: after a reconnect the claimant asks
 * the new one. Teardown waits for a claimant's poll in progress before the CQ is destroyed ({@link #cqClosing}).
 */
final class PollingClaim {
    private static final int FREE = 0;
    private static final int REQUESTED = 1;
    private static final int GRANTED = 2;

    private final QueueState q;
    private final CompletionQueue cq;
    private final CompletionPoller.Sink sink;
    private final WorkCompletion[] wcs;
    private final AtomicInteger state = new AtomicInteger(FREE);
    /** Held while the claimant polls; teardown takes it before the CQ goes. */
    private final ReentrantLock polling = new ReentrantLock();
    private volatile Thread claimant;
    /** The completion thread of this connection, known once it has run. */
    private volatile Thread completionThread;
    /** Under {@link #polling}. */
    private boolean cqClosed;
    /** The claimant's next timeout tick (its thread only). */
    private long nextTick;

    PollingClaim(QueueState q, CompletionQueue cq, CompletionPoller.Sink sink, int batch) {
        this.q = q;
        this.cq = cq;
        this.sink = sink;
        this.wcs = new WorkCompletion[batch];
        for (int i = 0; i < batch; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    /** Asks that {@code t} poll; true when it already does. Any thread; one claimant at a time. */
    boolean request(Thread t) {
        int s = state.get();
        if (s == GRANTED || s == REQUESTED) {
            return s == GRANTED && claimant == t;
        }
        claimant = t;
        state.compareAndSet(FREE, REQUESTED);
        return false;
    }

    /** Whether a claimant waits for the CQ (the completion thread stops spinning and grants it). */
    boolean requested() {
        return state.get() == REQUESTED;
    }

    /**
     * The completion thread, before each poll: when a claimant has asked, makes it the queue's poller and parks
     * until the claim is given back or the connection ends (checking every tick); whether it parked.
     */
    boolean grantAndPark() {
        Thread me = Thread.currentThread();
        completionThread = me;
        // a CAS, not a set: the claimant may have given the request back since it was read, and a grant that
        // overwrote that would park this thread for a claimant that no longer polls (nobody would)
        if (state.get() != REQUESTED || !state.compareAndSet(REQUESTED, GRANTED)) {
            return false;
        }
        // granted: the claimant may poll from now on, and until this line it does so as a non-poller (callbacks
        // by the allocating path), never beside this thread, which polls no more until the claim comes back
        q.poller = claimant;
        while (state.get() == GRANTED && sink.running()) {
            LockSupport.parkNanos(this, CompletionPoller.TICK_NANOS);
        }
        if (sink.running()) {
            q.poller = me;
        }
        return true;
    }

    /**
     * On the claimant: handles what the CQ holds now, running the callbacks on this thread, and the timeouts every
     * tick; the number of completions, or -1 when {@code t} does not hold the CQ (not granted yet, given back, or
     * its connection ended: ask again).
     */
    int poll(Thread t) {
        if (state.get() != GRANTED || claimant != t) {
            return -1;
        }
        polling.lock();
        try {
            if (cqClosed || !sink.running()) {
                return -1;
            }
            int n = cq.poll(wcs);
            long now = System.nanoTime();
            boolean tick = now - nextTick >= 0;
            if (tick) {
                nextTick = now + CompletionPoller.TICK_NANOS;
            }
            sink.round(wcs, n, now, tick);
            return n;
        } catch (RuntimeException e) {
            sink.cqFailed("completion queue failed: " + e);
            return -1;
        } finally {
            polling.unlock();
        }
    }

    /**
     * The claimant, about to sleep elsewhere while it keeps the CQ: arms {@code wake} for the CQ's next completion
     * ({@link CompletionQueue#requestNotify}, or {@link CompletionQueue#requestNotifyWatching} when it can also
     * watch a descriptor: {@link #waitDescriptor}); the longest it may sleep before polling again (a tick: the timeouts
     * are checked in {@link #poll}), or 0 when nothing was armed (not the claimant, the connection ended, a
     * completion waits already, or the CQ cannot call back).
     */
    long armWake(Thread t, Runnable wake, boolean watching) {
        if (state.get() != GRANTED || claimant != t) {
            return 0;
        }
        polling.lock();
        try {
            if (cqClosed || !sink.running()) {
                return 0;
            }
            CompletionQueue.Notify armed = watching ? cq.requestNotifyWatching(wake) : cq.requestNotify(wake);
            return armed == CompletionQueue.Notify.ARMED || armed == CompletionQueue.Notify.WATCHING
                    ? CompletionPoller.TICK_NANOS : 0;
        } finally {
            polling.unlock();
        }
    }

    /**
     * The descriptor the claimant waits on after {@link #armWake} with {@code watching} (the CQ keeps its progress
     * with the claimant, {@link CompletionQueue#requestNotifyWatching}); -1 when only the wake will come.
     */
    int waitDescriptor() {
        return cq.waitDescriptor();
    }

    /** Disarms what {@link #armWake} armed; once it returns the wake neither runs nor will run. */
    void cancelWake() {
        polling.lock();
        try {
            if (!cqClosed) {
                cq.cancelNotify();
            }
        } finally {
            polling.unlock();
        }
    }

    /** Gives the CQ back to the completion thread (the claimant; a no-op for any other thread). */
    void release(Thread t) {
        if (claimant != t) {
            return;
        }
        if (state.compareAndSet(REQUESTED, FREE)) {
            return;
        }
        if (state.get() == GRANTED) {
            Thread c = completionThread;
            q.poller = c; // before FREE: never two threads that both take themselves for the poller
            state.set(FREE);
            LockSupport.unpark(c);
        }
    }

    /** Teardown, after the completion thread ended: waits for a claimant's poll in progress; later polls refuse. */
    void cqClosing() {
        polling.lock();
        try {
            cq.cancelNotify(); // no wake from a CQ that is going: the claimant wakes by its tick and asks anew
            cqClosed = true;
        } finally {
            polling.unlock();
        }
    }

    /** Wakes a parked completion thread (teardown: it sees the connection is over). */
    void wake() {
        Thread c = completionThread;
        if (c != null) {
            LockSupport.unpark(c);
        }
    }
}
