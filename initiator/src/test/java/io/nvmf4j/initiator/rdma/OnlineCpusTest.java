package io.nvmf4j.initiator.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OnlineCpusTest {

    @Test
    void countsTheCpusOfAKernelCpuList() {
        assertEquals(1, OnlineCpus.parse("0\n"));
        assertEquals(2, OnlineCpus.parse("0-1\n"));
        assertEquals(7, OnlineCpus.parse("0-3,8,10-11"));
    }

    @Test
    void aMalformedListCountsNothing() {
        assertEquals(0, OnlineCpus.parse(""));
        assertEquals(0, OnlineCpus.parse("0-"));
        assertEquals(0, OnlineCpus.parse("3-1"));
        assertEquals(0, OnlineCpus.parse("0,,2"));
        assertEquals(0, OnlineCpus.parse("x"));
    }

    @Test
    void thisMachineHasAtLeastTheCpusThisProcessMayUse() {
        assertTrue(OnlineCpus.count() >= Runtime.getRuntime().availableProcessors());
    }
}
