package io.nvmf4j.initiator.tcp;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The completion thread of one TCP connection, as the RDMA queue's: reads the non-blocking socket in a busy loop
 * ({@code Thread.onSpinWait}) for the spin budget after the last bytes, then blocks in the selector for at most
 * {@link #BLOCK_MILLIS}; every {@link #TICK_NANOS} it checks command deadlines. A thread that polls the queue itself
 * asks through {@link #request}: the poller hands the socket over at its next round and parks until
 * {@link #release}. One poller per connection; a reconnect starts a new one (a claimant then claims again).
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
    private volatile Thread wanted;
    private volatile Thread owner;
    /** Written by whichever of the thread and its claimant polls, never both at once. */
    private long nextTick;

    private static final VarHandle WANTED;

    static {
        try {
            WANTED = MethodHandles.lookup().findVarHandle(TcpPoller.class, "wanted", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

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
                Thread w = wanted;
                if (w != null) {
                    owner = w;
                    wanted = null;
                    while (owner != null && running) {
                        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(BLOCK_MILLIS));
                    }
                    nextTick = System.nanoTime() + TICK_NANOS; // the claimant ticked meanwhile
                    continue;
                }
                int n = receiver.poll();
                if (n == 0) {
                    long until = System.nanoTime() + queue.spinNanos;
                    while (n == 0 && running && wanted == null && System.nanoTime() - until < 0) {
                        Thread.onSpinWait();
                        n = receiver.poll();
                    }
                    if (n == 0 && running && wanted == null) {
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
        if (owner == t) {
            return true;
        }
        if (!running) {
            return false;
        }
        wanted = t;
        if (owner == t) {
            // granted between the check above and this request: withdraw it, or the poller would grant it again
            // after the release and park for good
            WANTED.compareAndSet(this, t, null);
            return true;
        }
        connection.wakeup();
        return false;
    }

    /** On the claimant: one round; the commands completed, or -1 without the claim. */
    int pollClaimed(Thread t) {
        if (owner != t || !running) {
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
        if (owner == t) {
            WANTED.compareAndSet(this, t, null);
            owner = null;
            LockSupport.unpark(thread);
        }
    }

    /** Ends the loop (the connection failed or is being torn down). */
    void stop() {
        running = false;
        owner = null;
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
