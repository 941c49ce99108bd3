package io.nvmf4j.verbs.provider;

import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A listener's connection requests from arrival to answer, as every provider keeps them: the queue that
 * {@link io.nvmf4j.verbs.RdmaListener#accept} takes from (at most {@code capacity}: the backlog), and the requests
 * it handed out that nobody answered yet. Closing refuses both - as {@code rdma_destroy_id} of a listening id
 * rejects the requests still on it - so that no connector waits for its own timeout, and wakes every thread
 * blocked in {@link #take}. One thread offers (the provider's listener or CM thread).
 *
 * @param <R> the provider's request type
 */
public final class AcceptQueue<R extends ProviderConnectRequest> {
    /** Put behind the requests on close: wakes the takers, who put it back for the next one. */
    private static final Object CLOSED = new Object();

    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final Set<R> handedOut = ConcurrentHashMap.newKeySet();
    private final Class<R> type;
    private final int capacity;
    private final Supplier<InetSocketAddress> address;
    /** Set by {@link #stopTaking} or {@link #close}: accept fails with CLOSED. */
    private volatile boolean closed;
    /** Set by {@link #close}: nothing is queued any more. */
    private volatile boolean drained;

    /**
     * @param capacity how many unanswered requests may wait (at least 1)
     * @param address  the listener's address (once bound), for messages
     */
    public AcceptQueue(Class<R> type, int capacity, Supplier<InetSocketAddress> address) {
        this.type = type;
        this.capacity = Math.max(1, capacity);
        this.address = address;
    }

    /** Queues an arrived request; false if the queue is full or closed (the caller refuses it then). */
    public boolean offer(R request) {
        if (drained || queue.size() >= capacity) {
            return false;
        }
        queue.add(request);
        if (drained && queue.remove(request)) {
            return false; // closed meanwhile: close() may have drained the queue before it came in
        }
        return true;
    }

    /**
     * The next request, or null if none arrived within {@code timeout}.
     *
     * @throws VerbsException CLOSED once closed
     */
    public R take(Duration timeout) throws VerbsException, InterruptedException {
        if (closed) {
            throw closedException();
        }
        Object next = queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (next == CLOSED) {
            queue.add(CLOSED);
            throw closedException();
        }
        if (next == null) {
            if (closed) {
                throw closedException();
            }
            return null;
        }
        R request = type.cast(next);
        handedOut.removeIf(ProviderConnectRequest::answered); // the set holds only the unanswered
        handedOut.add(request);
        if (drained) {
            request.abandon(); // closed meanwhile: close() may have missed it
        }
        return request;
    }

    /**
     * Hands the requests that waited longer than {@code timeoutNanos} without an answer, queued or handed out, to
     * {@code timedOut} (once each), and forgets the answered ones.
     */
    public void expire(long now, long timeoutNanos, Consumer<R> timedOut) {
        for (Object o : queue) {
            if (o != CLOSED) {
                R r = type.cast(o);
                if (now - r.createdNanos() - timeoutNanos > 0 && queue.remove(r)) {
                    timedOut.accept(r);
                }
            }
        }
        for (Iterator<R> it = handedOut.iterator(); it.hasNext(); ) {
            R r = it.next();
            if (r.answered()) {
                it.remove();
            } else if (now - r.createdNanos() - timeoutNanos > 0) {
                it.remove();
                timedOut.accept(r);
            }
        }
    }

    /**
     * From now on {@link #take} fails with CLOSED, while the provider's own thread may still {@link #offer} what
     * it has in hand until {@link #close}.
     */
    public void stopTaking() {
        closed = true;
    }

    /** Refuses every queued and every handed-out unanswered request and wakes the takers. Idempotent. */
    public void close() {
        closed = true;
        drained = true;
        Object o;
        while ((o = queue.poll()) != null) {
            if (o != CLOSED) {
                type.cast(o).abandon();
            }
        }
        queue.add(CLOSED);
        for (R taken : handedOut) {
            taken.abandon();
        }
        handedOut.clear();
    }

    private VerbsException closedException() {
        return new VerbsException(VerbsErrorCode.CLOSED, "listener on " + address.get() + " is closed");
    }
}
