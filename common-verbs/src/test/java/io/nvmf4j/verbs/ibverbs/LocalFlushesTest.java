package io.nvmf4j.verbs.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;

import org.junit.jupiter.api.Test;

/** The provider's own flush completions: first in, first out, as many as the caller has room for, none lost. */
class LocalFlushesTest {

    @Test
    void flushesComeOutInPostingOrderAcrossGrowthAndPartialDrains() {
        LocalFlushes flushes = new LocalFlushes();
        for (int i = 0; i < 40; i++) {
            flushes.add(i, i % 2 == 0 ? WcOpcode.SEND : WcOpcode.RECV, 7);
        }
        WorkCompletion[] out = new WorkCompletion[16];
        for (int i = 0; i < out.length; i++) {
            out[i] = new WorkCompletion();
        }
        long next = 0;
        int drained;
        // leave the first 3 slots to "device" completions, as IbverbsCompletionQueue does
        while ((drained = flushes.drainInto(out, 3)) > 0) {
            assertTrue(drained <= 13);
            for (int i = 3; i < 3 + drained; i++, next++) {
                assertEquals(next, out[i].wrId());
                assertEquals(WcStatus.WR_FLUSH_ERR, out[i].status());
                assertEquals(next % 2 == 0 ? WcOpcode.SEND : WcOpcode.RECV, out[i].opcode());
                assertEquals(7, out[i].queuePairNumber());
            }
            if (next == 13) {
                flushes.add(40, WcOpcode.SEND, 7); // added while draining: comes after the rest
            }
        }
        assertEquals(41, next);
        assertTrue(flushes.isEmpty());
    }
}
