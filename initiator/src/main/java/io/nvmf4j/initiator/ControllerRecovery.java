package io.nvmf4j.initiator;

import java.util.concurrent.TimeUnit;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Error recovery of a live controller, as Linux {@code nvme_rdma_error_recovery_work()} and
 * {@code nvme_rdma_reconnect_or_remove()}: the first queue failure moves the controller to RECONNECTING; every
 * queue is torn down and the {@link ControllerSetup} sequence is retried every reconnect-delay; after
 * ctrl-loss-tmo the controller is DEAD and everything waiting fails with {@link NvmfControllerLostException}. Runs on
 * the controller's timer thread.
 */
final class ControllerRecovery {

    /** The controller's log, as before the split (operators and tests filter on it). */
    private static final Logger LOG = System.getLogger(NvmeController.class.getName());

    private final NvmeController c;
    private final ConnectOptions options;
    private final String name;
    /** Guards the controller's state changes between LIVE, RECONNECTING, DEAD and DELETING. */
    final Object lock = new Object();
    private long lostSinceNanos;

    ControllerRecovery(NvmeController controller) {
        this.c = controller;
        this.options = controller.options();
        this.name = controller.name();
    }

    /** A queue failed: from LIVE, start reconnecting (other states handle it themselves). */
    void queueFailed(String reason) {
        synchronized (lock) {
            if (c.state != ControllerState.LIVE) {
                return; // during the connect sequence the failing command reports it; later states handle it
            }
            c.state = ControllerState.RECONNECTING;
            lostSinceNanos = System.nanoTime();
        }
        LOG.log(Level.WARNING, name + ": connection lost (" + reason + "); reconnecting every "
                + options.reconnectDelay().toMillis() + " ms for up to " + options.ctrlLossTimeout().toSeconds() + " s");
        c.timers.execute(this::reconnectAttempt);
    }

    /** After a successful sequence: LIVE, unless a queue broke meanwhile (then the caller tries again). */
    boolean goLive(ControllerState from) throws NvmfConnectException {
        synchronized (lock) {
            if (c.state != from) {
                return false;
            }
            requireAllQueuesLive();
            c.state = ControllerState.LIVE;
            return true;
        }
    }

    private void reconnectAttempt() {
        if (c.state != ControllerState.RECONNECTING) {
            return;
        }
        c.admin.disconnect();
        for (HostQueue q : c.ioQueues) {
            q.disconnect();
        }
        try {
            c.setup.run(false);
            if (goLive(ControllerState.RECONNECTING)) {
                LOG.log(Level.INFO, name + ": reconnected");
                c.events.start(true); // nvme_start_ctrl(): AEN re-armed, namespaces rescanned
            }
        } catch (NvmfException | RuntimeException e) {
            long lost = System.nanoTime() - lostSinceNanos;
            if (!options.ctrlLossTimeout().isNegative() && lost >= options.ctrlLossTimeout().toNanos()) {
                giveUp(e);
            } else {
                LOG.log(Level.INFO, name + ": reconnect failed (" + e.getMessage() + "); next try in "
                        + options.reconnectDelay().toMillis() + " ms");
                c.timers.schedule(this::reconnectAttempt, options.reconnectDelay().toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Fails when a queue broke while the connect sequence went on (its failure was not acted on then). */
    private void requireAllQueuesLive() throws NvmfConnectException {
        if (!c.admin.isLive()) {
            throw new NvmfConnectException(name + ": admin queue broke during connect: " + c.admin.failureReason());
        }
        for (HostQueue q : c.ioQueues) {
            if (!q.isLive()) {
                throw new NvmfConnectException(name + ": " + q.qid() + " broke during connect: " + q.failureReason());
            }
        }
    }

    private void giveUp(Exception last) {
        synchronized (lock) {
            if (c.state != ControllerState.RECONNECTING) {
                return;
            }
            c.state = ControllerState.DEAD;
        }
        NvmfControllerLostException lost = new NvmfControllerLostException(name + ": controller at " + options.address()
                + " lost: no reconnect within ctrl-loss-tmo " + options.ctrlLossTimeout().toSeconds() + " s (last: "
                + last.getMessage() + ")", last);
        LOG.log(Level.WARNING, lost.getMessage());
        c.admin.failPending(lost);
        for (HostQueue q : c.ioQueues) {
            q.failPending(lost);
            q.close();
        }
        c.admin.close();
    }
}
