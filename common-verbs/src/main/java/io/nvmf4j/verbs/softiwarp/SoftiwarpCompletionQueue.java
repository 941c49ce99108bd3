package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A completion ring of preallocated {@link WorkCompletion}s. Producers are the progress engines and posting
 * threads (a short lock); the consumer polls. {@link #await} spins {@code cqSpinNanos} then parks until a
 * producer unparks it.
 */
public final class SoftiwarpCompletionQueue implements CompletionQueue {
    private final WorkCompletion[] ring;
    private final long spinNanos;
    private long head;
    private long tail;
    private volatile long published;
    private volatile Thread waiter;
    private volatile boolean overflowed;
    private volatile boolean closed;

    SoftiwarpCompletionQueue(int entries, long spinNanos) {
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
        return true;
    }

    @Override
    public int poll(WorkCompletion[] out) {
        if (published == head) {
            return 0;
        }
        synchronized (this) {
            int n = 0;
            while (n < out.length && head < tail) {
                out[n++].copyFrom(ring[(int) (head % ring.length)]);
                head++;
            }
            return n;
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
        try {
            while (true) {
                n = poll(out);
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
    }
}
