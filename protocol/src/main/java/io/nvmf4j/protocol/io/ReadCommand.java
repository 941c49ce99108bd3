package io.nvmf4j.protocol.io;

import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * Read (opcode 02h; NVM Command Set 1.0, 3.2.6): read {@link #blocks()} logical blocks from SLBA into the data
 * pointer. See {@link LbaRangeCommand} for the field layout.
 */
public final class ReadCommand extends LbaRangeCommand {

    private ReadCommand(SubmissionQueueEntry sqe) {
        super(sqe);
    }

    public static ReadCommand wrap(SubmissionQueueEntry sqe) {
        return new ReadCommand(requireOpcode(sqe, IoOpcode.READ));
    }

    /** Clears {@code sqe} and writes a Read of {@code blocks} blocks (1..65536) at {@code slba}. */
    public static ReadCommand create(SubmissionQueueEntry sqe, long nsid, long slba, int blocks) {
        return new ReadCommand(start(sqe, IoOpcode.READ, nsid, slba, blocks));
    }

    /**
     * Clears {@code sqe} and writes a Read in place, without a view object: the host's data path encodes every
     * I/O with this (no allocation per command).
     */
    public static void encode(SubmissionQueueEntry sqe, long nsid, long slba, int blocks, boolean fua) {
        start(sqe, IoOpcode.READ, nsid, slba, blocks);
        if (fua) {
            sqe.cdw(12, sqe.cdw12() | CDW12_FUA);
        }
    }

    public ReadCommand fua(boolean fua) {
        setFlag(CDW12_FUA, fua);
        return this;
    }

    public ReadCommand limitedRetry(boolean lr) {
        setFlag(CDW12_LR, lr);
        return this;
    }

    @Override
    public String toString() {
        return describe("Read");
    }
}
