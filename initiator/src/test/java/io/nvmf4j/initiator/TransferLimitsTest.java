package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class TransferLimitsTest {

    @Test
    void mdtsInBytesBoundsBlocksPerCommand() {
        // MDTS 5 with 4 KiB pages = 128 KiB: 256 blocks of 512 B, 32 blocks of 4 KiB
        assertEquals(256, TransferLimits.maxBlocksPerCommand(512, 128 * 1024, Long.MAX_VALUE));
        assertEquals(32, TransferLimits.maxBlocksPerCommand(4096, 128 * 1024, Long.MAX_VALUE));
    }

    @Test
    void bouncePathLimitWinsWhenSmaller() {
        assertEquals(32, TransferLimits.maxBlocksPerCommand(512, 1 << 20, 16 * 1024));
    }

    @Test
    void nlbFieldCapsAt65536Blocks() {
        assertEquals(65536, TransferLimits.maxBlocksPerCommand(512, Long.MAX_VALUE, Long.MAX_VALUE));
    }

    @Test
    void commandCountRoundsUp() {
        assertEquals(13, TransferLimits.commandCount(400, 32));
        assertEquals(1, TransferLimits.commandCount(32, 32));
        assertEquals(2, TransferLimits.commandCount(33, 32));
    }

    @Test
    void blockLargerThanTheLimitIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> TransferLimits.maxBlocksPerCommand(8192, 4096, 4096));
    }
}
