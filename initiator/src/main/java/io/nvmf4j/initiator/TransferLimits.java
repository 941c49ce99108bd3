package io.nvmf4j.initiator;

import io.nvmf4j.protocol.io.LbaRangeCommand;

/**
 * How many logical blocks one command may carry: the controller's MDTS (in bytes), the path's own limit (the
 * bounce buffer size on the copy path; the 24-bit keyed SGL length is already in MDTS bytes) and the 16-bit NLB
 * field (65536 blocks), as Linux's {@code max_hw_sectors} / {@code max_segment_size} bound a request.
 */
public final class TransferLimits {

    private TransferLimits() {
    }

    /**
     * @param blockSize     LBA data size in bytes
     * @param maxTransfer   MDTS in bytes (Long.MAX_VALUE when unlimited)
     * @param pathLimit     bytes one command may move on this path
     * @return blocks per command, at least 1
     * @throws IllegalArgumentException when not even one block fits
     */
    public static int maxBlocksPerCommand(long blockSize, long maxTransfer, long pathLimit) {
        if (blockSize <= 0) {
            throw new IllegalArgumentException("block size " + blockSize);
        }
        long bytes = Math.min(maxTransfer, pathLimit);
        long blocks = Math.min(bytes / blockSize, LbaRangeCommand.MAX_BLOCKS);
        if (blocks < 1) {
            throw new IllegalArgumentException("a block of " + blockSize + " bytes exceeds the transfer limit of "
                    + bytes + " bytes");
        }
        return (int) blocks;
    }

    /** Number of commands a transfer of {@code blocks} needs at {@code perCommand} blocks each. */
    public static long commandCount(long blocks, int perCommand) {
        return (blocks + perCommand - 1) / perCommand;
    }
}
