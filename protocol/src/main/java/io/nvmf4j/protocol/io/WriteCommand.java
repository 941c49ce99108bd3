package io.nvmf4j.protocol.io;

import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * Write (opcode 01h; NVM Command Set 1.0, 3.2.8): write {@link #blocks()} logical blocks at SLBA from the data
 * pointer (in-capsule data or a keyed SGL the target fetches by RDMA Read). See {@link LbaRangeCommand} for the field layout.
 */
public final class WriteCommand extends LbaRangeCommand {

    private WriteCommand(SubmissionQueueEntry sqe) {
        super(sqe);
    }

    public static WriteCommand wrap(SubmissionQueueEntry sqe) {
        return new WriteCommand(requireOpcode(sqe, IoOpcode.WRITE));
    }

    /** Clears {@code sqe} and writes a Write of {@code blocks} blocks (1..65536) at {@code slba}. */
    public static WriteCommand create(SubmissionQueueEntry sqe, long nsid, long slba, int blocks) {
        return new WriteCommand(start(sqe, IoOpcode.WRITE, nsid, slba, blocks));
    }

    /**
     * Clears {@code sqe} and writes a Write in place, without a view object: the host's data path encodes every
     * I/O with this (no allocation per command).
     */
    public static void encode(SubmissionQueueEntry sqe, long nsid, long slba, int blocks, boolean fua) {
        start(sqe, IoOpcode.WRITE, nsid, slba, blocks);
        if (fua) {
            sqe.cdw(12, sqe.cdw12() | CDW12_FUA);
        }
    }

    public WriteCommand fua(boolean fua) {
        setFlag(CDW12_FUA, fua);
        return this;
    }

    public WriteCommand limitedRetry(boolean lr) {
        setFlag(CDW12_LR, lr);
        return this;
    }

    @Override
    public String toString() {
        return describe("Write");
    }
}
