package io.nvmf4j.initiator.tcp;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The completion thread of one TCP connection, as the RDMA queue's: reads the non-blocking socket in a busy loop
 * ({@code Thread.onSpinWait}) for the spin budget after the last bytes, then blocks in the selector for at most
 * {@link #BLOCK_MILLIS}; every {@link #TICK_NANOS} it checks command deadlines. A thread that polls the queue itself
 * asks through {@link #request}: the poller hands the socket over at its next round and parks until
 * {@link #release}. One poller per connection; a reconnect starts a new one (a claimant then claims again).
 *
 * <p>The claim moves FREE -> REQUESTED (the claimant) -> GRANTED (the poller, by compare-and-set) -> FREE (the
 * claimant), as the RDMA queue's {@code PollingClaim}: a request given back before the grant (REQUESTED -> FREE)
 * can no longer be granted, so the poller never parks for a claimant that has stopped polling.
 */
final class TcpPoller {

    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int BLOCK_MILLIS = 20;

    private final TcpHostQueue queue;
    private final TcpConnection connection;
    private final PduReceiver receiver;
    private final int generation;
    private Thread thread;
    private volatile boolean running = true;
    private static final int FREE = 0;
    private static final int REQUESTED = 1;
    private static final int GRANTED = 2;
    private final AtomicInteger claim = new AtomicInteger(FREE);
    /** The thread that asked last; it polls while the claim is GRANTED. */
    private volatile Thread claimant;
    /** Written by whichever of the thread and its claimant polls, never both at once. */
    private long nextTick;

    private TcpPoller(TcpHostQueue queue, TcpConnection connection, PduReceiver receiver, int generation) {
        this.queue = queue;
        this.connection = connection;
        this.receiver = receiver;
        this.generation = generation;
    }

    static TcpPoller start(TcpHostQueue queue, TcpConnection connection, PduReceiver receiver, int generation) {
        TcpPoller p = new TcpPoller(queue, connection, receiver, generation);
        p.thread = Thread.ofPlatform().daemon().name("nvmf4j-" + queue.name).unstarted(p::loop);
        p.thread.start();
        return p;
    }

    private void loop() {
        nextTick = System.nanoTime() + TICK_NANOS;
        try {
            while (running) {
                // a CAS: the claimant may have given its request back since (REQUESTED -> FREE)
                if (claim.get() == REQUESTED && claim.compareAndSet(REQUESTED, GRANTED)) {
                    while (claim.get() == GRANTED && running) {
                        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(BLOCK_MILLIS));
                    }
                    nextTick = System.nanoTime() + TICK_NANOS; // the claimant ticked meanwhile
                    continue;
                }
                int n = receiver.poll();
                if (n == 0) {
                    long until = System.nanoTime() + queue.spinNanos;
                    while (n == 0 && running && claim.get() != REQUESTED && System.nanoTime() - until < 0) {
                        Thread.onSpinWait();
                        n = receiver.poll();
                    }
                    if (n == 0 && running && claim.get() != REQUESTED) {
                        connection.await(BLOCK_MILLIS);
                    }
                }
                tick();
            }
        } catch (IOException | RuntimeException e) {
            failed(e);
        }
    }

    private void tick() {
        long now = System.nanoTime();
        if (now - nextTick >= 0) {
            nextTick = now + TICK_NANOS;
            queue.expireTimedOut(now);
        }
    }

    private void failed(Exception e) {
        if (!running) {
            return; // the queue ended the connection itself
        }
        running = false;
        String reason = e.getMessage() == null ? e.toString() : e.getMessage();
        if (e instanceof PduException pe) {
            if (pe.sendTermReq) {
                queue.sendTermReq(connection, pe, receiver.currentHeader());
            }
            reason = "protocol error: " + reason;
        }
        queue.connectionFailed(generation, reason);
    }

    /** True once {@code t} polls the queue itself; otherwise asks for it (granted at the poller's next round). */
    boolean request(Thread t) {
        int s = claim.get();
        if (s != FREE) {
            return s == GRANTED && claimant == t;
        }
        if (!running) {
            return false;
        }
        claimant = t;
        if (claim.compareAndSet(FREE, REQUESTED)) {
            connection.wakeup();
        }
        return false;
    }

    /** On the claimant: one round; the commands completed, or -1 without the claim. */
    int pollClaimed(Thread t) {
        if (claim.get() != GRANTED || claimant != t || !running) {
            return -1;
        }
        try {
            receiver.poll();
            tick();
            return receiver.completions;
        } catch (IOException | RuntimeException e) {
            failed(e);
            return -1;
        }
    }

    void release(Thread t) {
        if (claimant != t || claim.compareAndSet(REQUESTED, FREE)) {
            return; // not ours, or asked for and not granted: withdrawn
        }
        if (claim.compareAndSet(GRANTED, FREE)) {
            LockSupport.unpark(thread);
        }
    }

    /** Ends the loop (the connection failed or is being torn down). */
    void stop() {
        running = false;
        connection.wakeup();
        LockSupport.unpark(thread);
    }

    /** Waits for the thread to end, unless called on it. */
    void join() {
        if (thread != Thread.currentThread()) {
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
