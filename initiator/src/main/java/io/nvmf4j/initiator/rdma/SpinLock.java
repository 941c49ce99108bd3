package io.nvmf4j.initiator.rdma;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The lock of an {@link RdmaHostQueue}: reentrant, for short critical sections only (slot bookkeeping, never a
 * post that may write to a socket, never a wait). A contended acquire spins ({@code Thread.onSpinWait}) and then
 * yields; unlike {@code ReentrantLock} it never allocates a wait-queue node and never parks, so a submitter that
 * meets the completion thread inside the lock neither allocates nor pays a wake-up (~55 µs here, bench/tcprr.c;
 * docs/ARCHITECTURE.md) - the data path stays allocation-free when several threads submit to one queue.
 */
final class SpinLock {

    private static final int SPINS_BEFORE_YIELD = 128;
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(SpinLock.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through OWNER
    private volatile Thread owner;
    /** Acquisitions by the owner; touched only by the owner. */
    private int holds;

    @SuppressWarnings("ThreadPriorityCheck") // the holder may be descheduled: a bounded back-off after spinning, not a priority
    void lock() {
        Thread me = Thread.currentThread();
        if (owner == me) {
            holds++;
            return;
        }
        int spins = 0;
        while (!OWNER.compareAndSet(this, null, me)) {
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                Thread.yield(); // the holder may have been descheduled (2 cores, many threads): let it run
            }
        }
        holds = 1;
    }

    void unlock() {
        if (owner != Thread.currentThread()) {
            throw new IllegalMonitorStateException("unlock by a thread that does not hold the lock");
        }
        if (--holds == 0) {
            OWNER.setRelease(this, null);
        }
    }
}
