package io.nvmf4j.initiator;

import io.nvmf4j.protocol.admin.KeepAliveCommand;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;

/**
 * Keep Alive every KATO / 2 on the admin queue while the controller is live ({@code nvme_keep_alive_work()},
 * {@code nvme_keep_alive_work_period()} without TBKAS; NVMe Base 2.0, 3.9). A failed Keep Alive is logged; the
 * queue's own failure handling starts recovery.
 *
 * <p>{@link #stop()} returns only once no Keep Alive can go out any more, as {@code nvme_stop_keep_alive()} cancels
 * its work with {@code cancel_delayed_work_sync()}: one whose timer had already passed the state check is
 * submitted first, so it cannot follow the shutdown's Property Set on the admin queue. nvmet rejects any admin
 * command after CC.SHN ("got cmd 24 while CC.EN == 0"), and its TCP transport logs the rejection as an error.
 */
final class KeepAlive {

    /** The controller's log, as before the split (operators and tests filter on it). */
    private static final Logger LOG = System.getLogger(NvmeController.class.getName());

    private final NvmeController c;
    /** Orders a Keep Alive's submission against {@link #stop()}. */
    private final Object lock = new Object();
    private ScheduledFuture<?> task;
    private boolean stopped;
    /** Runs in {@link #send()} after its checks, before the submission (tests hold a send there). */
    private volatile Runnable beforeSubmit;

    KeepAlive(NvmeController controller) {
        this.c = controller;
    }

    void start() {
        long kato = c.options().keepAliveTimeout().toMillis();
        if (kato <= 0) {
            return;
        }
        long period = Math.max(1, kato / 2);
        synchronized (lock) {
            if (!stopped) {
                task = c.timers.scheduleAtFixedRate(this::send, period, period, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** No Keep Alive goes out after this returns; one being submitted now is waited for (it does not block). */
    void stop() {
        synchronized (lock) {
            stopped = true;
            if (task != null) {
                task.cancel(false);
            }
        }
    }

    /** Test seam: {@code r} runs in the next sends between their checks and their submission. */
    void beforeSubmit(Runnable r) {
        beforeSubmit = r;
    }

    private void send() {
        synchronized (lock) {
            if (stopped || c.state != ControllerState.LIVE) {
                return;
            }
            Runnable hook = beforeSubmit;
            if (hook != null) {
                hook.run();
            }
            FutureRequest ka = new FutureRequest("Keep Alive", false, false, KeepAliveCommand::create);
            ka.noData();
            ka.future.whenComplete((r, e) -> {
                if (e != null && c.state == ControllerState.LIVE) {
                    LOG.log(Level.WARNING, c.name() + ": keep alive failed: " + e.getMessage());
                }
            });
            c.admin.submit(ka); // queues or sends; never waits for the controller
        }
    }
}
