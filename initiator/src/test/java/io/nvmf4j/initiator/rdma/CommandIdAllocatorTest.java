package io.nvmf4j.initiator.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CommandIdAllocatorTest {

    @Test
    void handsOutEveryTagOnceThenSignalsBackPressure() {
        CommandIdAllocator ids = new CommandIdAllocator(32);
        Set<Integer> cids = new HashSet<>();
        for (int i = 0; i < 32; i++) {
            int tag = ids.acquire();
            assertTrue(tag >= 0 && tag < 32);
            assertTrue(cids.add(ids.commandId(tag)), "CIDs of outstanding commands are unique");
        }
        assertEquals(-1, ids.acquire(), "full: the caller must wait");
        assertEquals(32, ids.outstanding());
        ids.release(5);
        assertEquals(5, ids.acquire());
    }

    @Test
    void cidCarriesTagInLow12BitsAndGenerationAbove() {
        CommandIdAllocator ids = new CommandIdAllocator(128);
        int tag = ids.acquire();
        assertEquals(0, tag);
        assertEquals(0x1000, ids.commandId(tag), "first use of tag 0: generation 1, like nvme_cid()");
        ids.release(tag);
        int again = ids.acquire();
        assertEquals(0, again);
        assertEquals(0x2000, ids.commandId(again));
    }

    @Test
    void staleOrUnknownCompletionIsNotMatched() {
        CommandIdAllocator ids = new CommandIdAllocator(16);
        int tag = ids.acquire();
        int oldCid = ids.commandId(tag);
        ids.release(tag);
        assertEquals(-1, ids.lookup(oldCid), "released");
        int reused = ids.acquire();
        assertEquals(tag, reused);
        assertEquals(-1, ids.lookup(oldCid), "same tag, older generation");
        assertEquals(reused, ids.lookup(ids.commandId(reused)));
        assertEquals(-1, ids.lookup(0x0FFF), "tag beyond capacity");
        assertEquals(-1, ids.lookup(ids.commandId(reused) + 1), "tag never handed out");
    }

    @Test
    void generationWrapsAfterSixteenUses() {
        CommandIdAllocator ids = new CommandIdAllocator(1);
        for (int i = 1; i <= 20; i++) {
            int tag = ids.acquire();
            assertEquals((i & 0xF) << 12, ids.commandId(tag));
            ids.release(tag);
        }
    }

    @Test
    void doubleReleaseFailsLoudly() {
        CommandIdAllocator ids = new CommandIdAllocator(4);
        int tag = ids.acquire();
        ids.release(tag);
        assertThrows(IllegalStateException.class, () -> ids.release(tag));
        assertFalse(ids.isOutstanding(tag));
    }
}
