package io.nvmf4j.protocol.admin;

import static io.nvmf4j.protocol.admin.CommandViews.bits;
import static io.nvmf4j.protocol.admin.CommandViews.checkRange;

import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * Abort (opcode 08h; NVMe Base 2.0, 5.1): CDW10 holds the SQID of the command to abort in bits 15:0 and its CID in
 * bits 31:16. Completion DW0 bit 0 is cleared when the command was aborted.
 *
 * <p>Linux: {@code struct nvme_abort_cmd} (sqid __le16 at 40, cid at 42); SPDK: {@code cdw10_bits.abort}.
 */
public final class AbortCommand {

    public static final int OFFSET_SQID = 40;
    public static final int OFFSET_CID = 42;

    private final SubmissionQueueEntry sqe;

    private AbortCommand(SubmissionQueueEntry sqe) {
        this.sqe = sqe;
    }

    public static AbortCommand wrap(SubmissionQueueEntry sqe) {
        return new AbortCommand(CommandViews.requireOpcode(sqe, AdminOpcode.ABORT));
    }

    public static AbortCommand create(SubmissionQueueEntry sqe, int sqid, int cid) {
        checkRange("SQID", sqid, 0, 0xFFFF);
        checkRange("CID", cid, 0, 0xFFFF);
        CommandViews.start(sqe, AdminOpcode.ABORT);
        sqe.cdw(10, (cid << 16) | sqid);
        return new AbortCommand(sqe);
    }

    public SubmissionQueueEntry sqe() {
        return sqe;
    }

    /** Submission queue of the command to abort. */
    public int targetSqid() {
        return bits(sqe.cdw10(), 0, 16);
    }

    /** Command identifier of the command to abort. */
    public int targetCid() {
        return bits(sqe.cdw10(), 16, 16);
    }

    @Override
    public String toString() {
        return String.format("Abort[cid=%d target sqid=%d cid=%d]", sqe.cid(), targetSqid(), targetCid());
    }
}
