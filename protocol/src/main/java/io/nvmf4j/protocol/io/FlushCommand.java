package io.nvmf4j.protocol.io;

import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * Flush (opcode 00h; NVM Command Set 1.0, 3.2.2 / NVMe Base 2.0, 7.1): commit the volatile write cache of the
 * namespace (or of all namespaces with NSID FFFFFFFFh, if the controller supports it, VWC bits 2:1). No other
 * fields. Linux: {@code nvme_setup_flush()}, {@code nvmet_file_execute_flush()}.
 */
public final class FlushCommand {

    public static final long ALL_NAMESPACES = 0xFFFF_FFFFL;

    private final SubmissionQueueEntry sqe;

    private FlushCommand(SubmissionQueueEntry sqe) {
        this.sqe = sqe;
    }

    public static FlushCommand wrap(SubmissionQueueEntry sqe) {
        return new FlushCommand(LbaRangeCommand.requireOpcode(sqe, IoOpcode.FLUSH));
    }

    public static FlushCommand create(SubmissionQueueEntry sqe, long nsid) {
        encode(sqe, nsid);
        return new FlushCommand(sqe);
    }

    /**
     * Clears {@code sqe} and writes a Flush in place, without a view object: what a reusable host request encodes
     * on every submission (no allocation per command).
     */
    public static void encode(SubmissionQueueEntry sqe, long nsid) {
        sqe.clear();
        sqe.opcode(IoOpcode.FLUSH.code());
        sqe.nsid(nsid);
    }

    public SubmissionQueueEntry sqe() {
        return sqe;
    }

    public long nsid() {
        return sqe.nsid();
    }

    @Override
    public String toString() {
        return "Flush[cid=" + sqe.cid() + " nsid=" + nsid() + "]";
    }
}
