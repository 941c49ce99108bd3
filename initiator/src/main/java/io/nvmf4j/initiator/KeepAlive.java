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
 */
final class KeepAlive {

    /** The controller's log, as before the split (operators and tests filter on it). */
    private static final Logger LOG = System.getLogger(NvmeController.class.getName());

    private final NvmeController c;
    private ScheduledFuture<?> task;

    KeepAlive(NvmeController controller) {
        this.c = controller;
    }

    void start() {
        long kato = c.options().keepAliveTimeout().toMillis();
        if (kato <= 0) {
            return;
        }
        long period = Math.max(1, kato / 2);
        task = c.timers.scheduleAtFixedRate(this::send, period, period, TimeUnit.MILLISECONDS);
    }

    void stop() {
        if (task != null) {
            task.cancel(false);
        }
    }

    private void send() {
        if (c.state != ControllerState.LIVE) {
            return;
        }
        FutureRequest ka = new FutureRequest("Keep Alive", false, false, KeepAliveCommand::create);
        ka.noData();
        ka.future.whenComplete((r, e) -> {
            if (e != null && c.state == ControllerState.LIVE) {
                LOG.log(Level.WARNING, c.name() + ": keep alive failed: " + e.getMessage());
            }
        });
        c.admin.submit(ka);
    }
}
