package io.nvmf4j.protocol.io;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * The fields Read, Write and Write Zeroes share (NVM Command Set 1.0, 3.2.4 / 3.2.6 / 3.2.8): SLBA, a 64-bit LBA in
 * CDW10 (low) and CDW11 (high); NLB, the 0's based block count, in CDW12 bits 15:0; FUA in CDW12 bit 30 and LR in
 * bit 31. Linux {@code struct nvme_rw_command}: slba __le64 at 40, length __le16 at 48, control __le16 at 50 with
 * {@code NVME_RW_FUA = 1 << 14} and {@code NVME_RW_LR = 1 << 15}.
 */
public abstract sealed class LbaRangeCommand permits ReadCommand, WriteCommand, WriteZeroesCommand {

    public static final int OFFSET_SLBA = 40;
    public static final int OFFSET_NLB = 48;
    public static final int OFFSET_CONTROL = 50;
    /** NLB is 16 bits, 0's based: 1..65536 blocks per command. */
    public static final int MAX_BLOCKS = 65536;

    public static final int CDW12_FUA = 1 << 30;
    public static final int CDW12_LR = 1 << 31;

    protected final SubmissionQueueEntry sqe;

    LbaRangeCommand(SubmissionQueueEntry sqe) {
        this.sqe = sqe;
    }

    static SubmissionQueueEntry requireOpcode(SubmissionQueueEntry sqe, IoOpcode expected) {
        if (sqe.opcode() != expected.code()) {
            throw new MalformedStructureException(String.format(
                    "expected %s command (opcode %02xh), got opcode %02xh", expected.name(), expected.code(), sqe.opcode()));
        }
        return sqe;
    }

    static SubmissionQueueEntry start(SubmissionQueueEntry sqe, IoOpcode opcode, long nsid, long slba, int blocks) {
        sqe.clear();
        sqe.opcode(opcode.code());
        sqe.nsid(nsid);
        sqe.setLong(OFFSET_SLBA, slba);
        setBlocks(sqe, blocks);
        return sqe;
    }

    static void setBlocks(SubmissionQueueEntry sqe, int blocks) {
        if (blocks < 1 || blocks > MAX_BLOCKS) {
            throw new IllegalArgumentException("block count " + blocks + " outside 1..65536");
        }
        sqe.cdw(12, (sqe.cdw12() & 0xFFFF0000) | (blocks - 1));
    }

    public SubmissionQueueEntry sqe() {
        return sqe;
    }

    public long nsid() {
        return sqe.nsid();
    }

    /** Starting LBA. */
    public long slba() {
        return slba(sqe);
    }

    /** NLB as stored (0's based). */
    public int nlb() {
        return nlb(sqe);
    }

    /** SLBA of a Read, Write or Write Zeroes entry, read in place (no view object: the target's data path). */
    public static long slba(SubmissionQueueEntry sqe) {
        return sqe.getLong(OFFSET_SLBA);
    }

    /** NLB (0's based) of a Read, Write or Write Zeroes entry, read in place. */
    public static int nlb(SubmissionQueueEntry sqe) {
        return sqe.cdw12() & 0xFFFF;
    }

    /** FUA of a Read, Write or Write Zeroes entry, read in place. */
    public static boolean fua(SubmissionQueueEntry sqe) {
        return (sqe.cdw12() & CDW12_FUA) != 0;
    }

    /** Number of logical blocks (NLB + 1). */
    public int blocks() {
        return nlb() + 1;
    }

    /** Force Unit Access: the data must reach non-volatile media before completion. */
    public boolean fua() {
        return fua(sqe);
    }

    /** Limited Retry. */
    public boolean limitedRetry() {
        return (sqe.cdw12() & CDW12_LR) != 0;
    }

    void setFlag(int flag, boolean on) {
        sqe.cdw(12, on ? sqe.cdw12() | flag : sqe.cdw12() & ~flag);
    }

    /** Bytes of data this command moves for {@code blockSize}-byte LBAs. */
    public long dataLength(long blockSize) {
        return blocks() * blockSize;
    }

    /**
     * Checks the range against a namespace of {@code namespaceBlocks} (NSZE): SLBA + NLB must not pass the end and
     * must not wrap (NVM Command Set 1.0: "LBA Out of Range"). Returns false rather than throwing: the target answers
     * with a status, not an exception.
     */
    public boolean fitsIn(long namespaceBlocks) {
        long slba = slba();
        long end = slba + blocks();
        return Long.compareUnsigned(slba, namespaceBlocks) < 0
                && Long.compareUnsigned(end, slba) > 0
                && Long.compareUnsigned(end, namespaceBlocks) <= 0;
    }

    protected String describe(String name) {
        return String.format("%s[cid=%d nsid=%d slba=%s blocks=%d%s%s]", name, sqe.cid(), nsid(),
                Long.toUnsignedString(slba()), blocks(), fua() ? " fua" : "", limitedRetry() ? " lr" : "");
    }
}
