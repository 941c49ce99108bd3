package io.nvmf4j.target.tcp;

import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.target.ControllerShare;
import io.nvmf4j.target.Request;
import io.nvmf4j.target.SubmissionQueue;
import io.nvmf4j.target.rdma.RejectReason;
import java.lang.System.Logger.Level;

/**
 * The life of a {@link TcpQueue} before its NVMe Connect succeeded (a peer that has not connected is a stranger):
 * it counts among the transport's unconnected connections until then, has the ICReq and connect timeouts to get
 * there, and gets one log line and count of the outcome: "host connected" (as nvmet logs a new controller) or the
 * refusal, once per connection. Poll-group thread only.
 */
final class TcpConnectPhase {

    private static final System.Logger LOG = System.getLogger(TcpQueue.class.getName());

    private final TcpQueue queue;
    private final SubmissionQueue sq;
    private final Runnable releaseUnconnected;
    /** When the connection was accepted (System.nanoTime), for the ICReq and connect timeouts. */
    private final long acceptedNanos = System.nanoTime();
    private boolean connected;
    private boolean unconnectedReleased;
    private boolean rejectionReported;

    TcpConnectPhase(TcpQueue queue, SubmissionQueue sq, Runnable releaseUnconnected) {
        this.queue = queue;
        this.sq = sq;
        this.releaseUnconnected = releaseUnconnected;
    }

    boolean connected() {
        return connected;
    }

    /** A response goes out on a queue not connected yet: the new controller is logged, or the refusal counted. */
    void announce(Request req) {
        if (connected) {
            return;
        }
        var c = sq.controller();
        if (c != null) {
            connected = true;
            leaveUnconnected();
            LOG.log(Level.INFO, "host {0} connected to {1}: controller {2}, queue {3}, over TCP from {4}",
                    c.hostNqn(), c.subsystem().nqn(), c.id(), sq.qidValue(), TcpQueue.address(queue.remote));
            queue.group.observer().queueConnected(c.subsystem().nqn().value(), sq.qidValue());
            if (sq.qidValue() != 0) {
                queue.receiver.widen(); // an I/O queue of a controller: room to read a burst of commands at once
            }
        } else if (req.statusField() != 0) {
            RejectReason reason = ControllerShare.isShareRefusal(req.refusal())
                    ? RejectReason.CONTROLLER_SHARE : RejectReason.CONNECT_REFUSED;
            report(reason, "Connect refused: " + StatusCode.describe(req.status(), true)
                    + (req.refusal() == null ? "" : " (" + req.refusal() + ")"));
        }
    }

    /** The connection no longer counts as unconnected (it connected, or it is gone). Idempotent. */
    void leaveUnconnected() {
        if (!unconnectedReleased) {
            unconnectedReleased = true;
            releaseUnconnected.run();
        }
    }

    /** Logs (once per connection, rate-limited over the transport) and counts a refused or ended peer. */
    void report(RejectReason reason, String detail) {
        if (!rejectionReported) {
            rejectionReported = true;
            queue.group.reportRejected(reason, queue + ": " + detail);
        } else {
            queue.group.observer().peerRejected(reason);
        }
    }

    /** Why the connection must end at {@code now} for want of an ICReq or a Connect, or null. */
    String timedOut(long now, boolean icReqDone, TcpTransportOptions o) {
        if (!icReqDone && now - acceptedNanos > o.icReqTimeout().toNanos()) {
            return "no ICReq within " + o.icReqTimeout().toMillis() + " ms";
        }
        if (!connected && now - acceptedNanos > o.connectTimeout().toNanos()) {
            return "no successful Connect within " + o.connectTimeout().toMillis() + " ms";
        }
        return null;
    }
}
