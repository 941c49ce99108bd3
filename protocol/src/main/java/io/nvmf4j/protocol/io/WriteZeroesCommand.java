package io.nvmf4j.protocol.io;

import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * Write Zeroes (opcode 08h; NVM Command Set 1.0, 3.2.9): SLBA and NLB as for Write, no data transfer; CDW12 bit 25
 * DEAC asks the controller to deallocate the blocks where it can (Linux {@code NVME_WZ_DEAC = 1 << 9} in the
 * control word at byte 50).
 */
public final class WriteZeroesCommand extends LbaRangeCommand {

    /** Deallocate, CDW12 bit 25. */
    public static final int CDW12_DEAC = 1 << 25;

    private WriteZeroesCommand(SubmissionQueueEntry sqe) {
        super(sqe);
    }

    public static WriteZeroesCommand wrap(SubmissionQueueEntry sqe) {
        return new WriteZeroesCommand(requireOpcode(sqe, IoOpcode.WRITE_ZEROES));
    }

    public static WriteZeroesCommand create(SubmissionQueueEntry sqe, long nsid, long slba, int blocks) {
        return new WriteZeroesCommand(start(sqe, IoOpcode.WRITE_ZEROES, nsid, slba, blocks));
    }

    public boolean deallocate() {
        return (sqe.cdw12() & CDW12_DEAC) != 0;
    }

    public WriteZeroesCommand deallocate(boolean deac) {
        setFlag(CDW12_DEAC, deac);
        return this;
    }

    public WriteZeroesCommand fua(boolean fua) {
        setFlag(CDW12_FUA, fua);
        return this;
    }

    public WriteZeroesCommand limitedRetry(boolean lr) {
        setFlag(CDW12_LR, lr);
        return this;
    }

    @Override
    public String toString() {
        String s = describe("WriteZeroes");
        return deallocate() ? s.substring(0, s.length() - 1) + " deac]" : s;
    }
}
