package io.nvmf4j.protocol.admin;

import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * Keep Alive (opcode 18h; NVMe Base 2.0, 5.25): no parameters; restarts the controller's keep alive timer. Over
 * fabrics a host must send one within each KATO period (NVMe-oF 1.1, 3.9) or the controller tears the association
 * down. Linux: {@code nvme_keep_alive_work()} / {@code nvmet_execute_keep_alive()}.
 */
public final class KeepAliveCommand {

    private final SubmissionQueueEntry sqe;

    private KeepAliveCommand(SubmissionQueueEntry sqe) {
        this.sqe = sqe;
    }

    public static KeepAliveCommand wrap(SubmissionQueueEntry sqe) {
        return new KeepAliveCommand(CommandViews.requireOpcode(sqe, AdminOpcode.KEEP_ALIVE));
    }

    public static KeepAliveCommand create(SubmissionQueueEntry sqe) {
        return new KeepAliveCommand(CommandViews.start(sqe, AdminOpcode.KEEP_ALIVE));
    }

    public SubmissionQueueEntry sqe() {
        return sqe;
    }

    @Override
    public String toString() {
        return "KeepAlive[cid=" + sqe.cid() + "]";
    }
}
