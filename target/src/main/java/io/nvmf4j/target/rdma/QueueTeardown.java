package io.nvmf4j.target.rdma;

import io.nvmf4j.target.Controller;
import io.nvmf4j.target.SubmissionQueue;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.RdmaConnection;
import java.lang.System.Logger.Level;

/**
 * The end of an {@link RdmaQueue} (nvmet-rdma's {@code __nvmet_rdma_queue_disconnect()} and
 * {@code nvmet_rdma_release_queue_work()}): its {@link RdmaQueue.State}, the connection to close, and the order of
 * the release: the connection is closed so every posted work request flushes, the submission queue leaves its
 * controller, and once the last flush is seen (or {@link #DRAIN_NANOS} passed) the memory is freed. Runs on the poll
 * group's thread, except {@link #state()}, which anyone may read, and {@link #connected} and {@link #abandon}, which
 * the listener's thread calls while it accepts the connection.
 */
final class QueueTeardown {

    private static final System.Logger LOG = System.getLogger(RdmaQueue.class.getName());

    /** How long a closing queue waits for its flushed work requests before it frees its memory regardless. */
    static final long DRAIN_NANOS = 5_000_000_000L;

    private final QueueCloser queue;
    private final PollGroup group;
    private final TransportObserver observer;
    /** The queue's slot in its poll group, given back at release. */
    private final int slot;
    private final int hostQid;
    private final SubmissionQueue sq;
    private final ConnectPhase connect;
    private final QueueBufferQuota quota;
    private final QueueWorkRequests wrs;
    private final QueueMemory memory;
    private volatile RdmaQueue.State state = RdmaQueue.State.LIVE;
    private volatile RdmaConnection connection;
    private long deadlineNanos;

    QueueTeardown(QueueCloser queue, PollGroup group, TransportObserver observer, int slot, int hostQid,
                  SubmissionQueue sq, ConnectPhase connect, QueueBufferQuota quota, QueueWorkRequests wrs,
                  QueueMemory memory) {
        this.queue = queue;
        this.group = group;
        this.observer = observer;
        this.slot = slot;
        this.hostQid = hostQid;
        this.sq = sq;
        this.connect = connect;
        this.quota = quota;
        this.wrs = wrs;
        this.memory = memory;
    }

    RdmaQueue.State state() {
        return state;
    }

    /** The connection is established: a disconnect from either side (or an error) ends the queue. */
    void connected(RdmaConnection c) {
        this.connection = c;
        c.onDisconnect(event -> group.execute(() -> begin(describe(event))));
    }

    private static String describe(DisconnectEvent event) {
        return switch (event.cause()) {
            case PEER_DISCONNECT -> "host disconnected";
            case LOCAL_DISCONNECT -> "disconnected";
            default -> event.cause().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                    + (event.detail() == null || event.detail().isEmpty() ? "" : ": " + event.detail());
        };
    }

    /** Starts the end of the queue (idempotent). */
    void begin(String reason) {
        if (state != RdmaQueue.State.LIVE) {
            return;
        }
        state = RdmaQueue.State.DISCONNECTING;
        quota.close();
        deadlineNanos = System.nanoTime() + DRAIN_NANOS;
        Controller c = sq.controller();
        LOG.log(c == null ? Level.DEBUG : Level.INFO, "{0}: closing ({1})", queue, reason);
        if (connect.announced()) {
            observer.queueDisconnected(c == null ? "" : c.subsystem().nqn().value(), hostQid);
        }
        RdmaConnection conn = connection;
        if (conn != null) {
            conn.disconnect();
        } else {
            wrs.closeQueuePair();
        }
        group.dropWaiters(queue);
        quota.dropWaiters();
        sq.destroy();
        // with the connection down, an AER parked in the core is never answered: its context is reclaimed at release
        releaseIfQuiet();
    }

    boolean overdue(long nowNanos) {
        return state == RdmaQueue.State.DISCONNECTING && nowNanos - deadlineNanos > 0;
    }

    void releaseIfQuiet() {
        if (state == RdmaQueue.State.DISCONNECTING && wrs.quiet() && !backendBusy()) {
            releaseResources();
        }
    }

    /** True while a command of this queue waits for its backend: the kernel or a worker may use its buffer. */
    private boolean backendBusy() {
        for (RdmaRequest r : memory.requests()) {
            if (r != null && r.request.waitingForBackend()) {
                return true;
            }
        }
        return false;
    }

    /** Frees everything (also used when flushes never came, or the poll group shuts down). */
    void releaseResources() {
        if (state == RdmaQueue.State.RELEASED) {
            return;
        }
        if (state == RdmaQueue.State.LIVE) {
            begin("shutting down");
            if (state == RdmaQueue.State.RELEASED) {
                return;
            }
        }
        state = RdmaQueue.State.RELEASED;
        RdmaConnection conn = connection;
        if (conn != null) {
            conn.close();
        } else {
            wrs.closeQueuePair();
        }
        for (RdmaRequest r : memory.requests()) {
            // a buffer still given to the backend is freed when the backend lets go of it (RdmaQueue.queueResponse)
            if (r != null && r.bufferOffset >= 0 && !r.request.waitingForBackend()) {
                group.freeBuffer(r);
            }
        }
        memory.close();
        group.unreserve(slot);
        LOG.log(Level.DEBUG, "{0}: released", queue);
    }

    /** Frees memory of a queue whose accept failed (its queue pair was never handed to us or is closed). */
    void abandon() {
        state = RdmaQueue.State.RELEASED;
        sq.destroy();
        memory.close();
    }
}
