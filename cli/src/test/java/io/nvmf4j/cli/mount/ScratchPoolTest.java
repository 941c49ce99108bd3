package io.nvmf4j.cli.mount;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.mount.ScratchPool.Scratch;
import org.junit.jupiter.api.Test;

class ScratchPoolTest {

    @Test
    void aReleasedSlotIsReusedAndIsAlignedForDirectIo() {
        try (ScratchPool pool = new ScratchPool(2)) {
            Scratch a = pool.take(4096);
            long address = a.segment().address();
            assertEquals(0, address % 4096);
            assertEquals(4096, a.segment().byteSize());
            a.close();
            try (Scratch b = pool.take(100)) {
                assertEquals(address, b.segment().address());
                assertEquals(100, b.segment().byteSize());
            }
        }
    }

    @Test
    void beyondTheSlotsAndAboveTheSlotSizeBuffersAreFreedOnClose() {
        try (ScratchPool pool = new ScratchPool(1)) {
            Scratch slot = pool.take(512);
            Scratch extra = pool.take(512);
            assertNotEquals(slot.segment().address(), extra.segment().address());
            extra.close();
            assertFalse(extra.segment().scope().isAlive(), "an overflow buffer is freed at once");
            Scratch big = pool.take(ScratchPool.SLOT_BYTES + 1);
            assertTrue(big.segment().scope().isAlive());
            big.close();
            assertFalse(big.segment().scope().isAlive(), "a buffer above the slot size is freed at once");
            slot.close();
            assertTrue(slot.segment().scope().isAlive(), "a slot goes back to the pool");
        }
    }
}
