package io.nvmf4j.target.rdma;

import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.target.Controller;
import io.nvmf4j.target.Request;
import io.nvmf4j.target.SubmissionQueue;
import java.lang.System.Logger.Level;

/**
 * The life of an {@link RdmaQueue} before its NVMe Connect succeeded (a peer that has not connected is a stranger):
 * the completion-queue room of the full queue depth reserved only while a Connect runs and given back if it fails,
 * the connect timeout ({@link RdmaTransportOptions#connectTimeout()}), and the one log line and count of the
 * outcome: "host connected" (as nvmet logs a new controller) or the refusal, once per connection. Runs on the poll
 * group's thread only.
 */
final class ConnectPhase {

    private static final System.Logger LOG = System.getLogger(RdmaQueue.class.getName());

    private final QueueCloser queue;
    private final PollGroup group;
    private final TransportObserver observer;
    /** The queue's slot in its poll group, whose completion-queue room this resizes. */
    private final int slot;
    private final int recvEntries;
    private final int hostQid;
    private final java.net.InetSocketAddress remote;
    private final SubmissionQueue sq;
    private final QueueMemory memory;
    private final QueueWorkRequests wrs;
    /** When the connection was accepted (System.nanoTime), for the connect timeout. */
    final long acceptedNanos = System.nanoTime();
    /** No successful Connect yet. */
    private boolean active = true;
    /** The completion-queue room of the full queue depth is reserved (from a Connect's execution on). */
    private boolean fullRoomReserved;
    /** The queue's controller was logged and announced to the observer. */
    private boolean announced;
    /** The peer was logged and counted as refused once: never again for this connection. */
    private boolean rejectionReported;

    ConnectPhase(QueueCloser queue, PollGroup group, TransportObserver observer, int slot, int recvEntries,
                 int hostQid, java.net.InetSocketAddress remote, SubmissionQueue sq, QueueMemory memory,
                 QueueWorkRequests wrs) {
        this.queue = queue;
        this.group = group;
        this.observer = observer;
        this.slot = slot;
        this.recvEntries = recvEntries;
        this.hostQid = hostQid;
        this.remote = remote;
        this.sq = sq;
        this.memory = memory;
        this.wrs = wrs;
    }

    boolean active() {
        return active;
    }

    boolean announced() {
        return announced;
    }

    /**
     * A command passed the core's checks on a queue in the Connect phase: it is a Connect (nothing else passes
     * prepare on an unbound queue), so the completion-queue room of the full queue is reserved now. False (the
     * command failed with Controller Busy) when the poll group has no room for it.
     */
    boolean reserveFullRoom(Request req) {
        if (!active || fullRoomReserved) {
            return true;
        }
        if (!group.resizeReservation(slot, QueueSizing.completionQueueNeeds(recvEntries))) {
            LOG.log(Level.WARNING, "{0}: no completion-queue room for {1} entries; Connect refused", queue,
                    recvEntries);
            req.fail(StatusCode.CONNECT_CTRL_BUSY.status(), Request.NO_ERROR_LOCATION);
            return false;
        }
        fullRoomReserved = true;
        return true;
    }

    /**
     * The response of a request in the Connect phase is about to go out: on success the queue gets its full depth
     * (receives posted before the response); on failure the full completion-queue room is given back. False when
     * the queue could not grow (it is then closing).
     */
    boolean ends(Request req) {
        if (sq.controller() != null) {
            active = false;
            group.leaveUnconnected(slot);
            if (!growAfterConnect()) {
                queue.beginTeardown("no resources for the connected queue");
                return false;
            }
        } else if (fullRoomReserved) {
            group.resizeReservation(slot,
                    QueueSizing.completionQueueNeeds(Math.min(QueueSizing.CONNECT_RECEIVES, recvEntries)));
            fullRoomReserved = false;
        }
        return true;
    }

    /**
     * After a successful Connect: the other receive buffers and request contexts, each receive posted before the
     * Connect response goes out (the host may then submit its whole queue at once).
     */
    private boolean growAfterConnect() {
        int first = Math.min(QueueSizing.CONNECT_RECEIVES, recvEntries);
        if (first == recvEntries) {
            return true;
        }
        if (!memory.grow(first, recvEntries)) {
            return false;
        }
        for (int i = first; i < recvEntries; i++) {
            if (!wrs.postReceive(i)) {
                return false;
            }
        }
        return true;
    }

    /** True (once) when the peer's rejection is to be logged and counted; later ones are not. */
    boolean firstRejection() {
        if (rejectionReported) {
            return false;
        }
        rejectionReported = true;
        return true;
    }

    boolean timedOut(long now, long connectTimeoutNanos) {
        return active && now - acceptedNanos > connectTimeoutNanos;
    }

    /** A response goes out on a queue not announced yet: log the new controller, or count the refused Connect. */
    void announce(Request req) {
        if (announced) {
            return;
        }
        Controller c = sq.controller();
        if (c != null) {
            announced = true;
            LOG.log(Level.INFO, "host {0} connected to {1}: controller {2}, queue {3}, from {4}", c.hostNqn(),
                    c.subsystem().nqn(), c.id(), hostQid, RdmaQueue.address(remote));
            observer.queueConnected(c.subsystem().nqn().value(), hostQid);
        } else if (req.statusField() != 0) {
            RejectReason reason = io.nvmf4j.target.ControllerShare.isShareRefusal(req.refusal())
                    ? RejectReason.CONTROLLER_SHARE : RejectReason.CONNECT_REFUSED;
            if (firstRejection()) {
                group.reportRejected(reason, "Connect on queue " + hostQid
                        + " from " + RdmaQueue.address(remote) + " refused: "
                        + StatusCode.describe(req.status(), true)
                        + (req.refusal() == null ? "" : " (" + req.refusal() + ")"));
            } else {
                observer.peerRejected(reason);
            }
        }
    }
}
