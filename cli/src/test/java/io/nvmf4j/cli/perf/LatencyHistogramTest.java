package io.nvmf4j.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** Bucket edges of the log-linear latency histogram, and a recording path that allocates nothing. */
class LatencyHistogramTest {

    @Test
    void valuesBelow2048NanosecondsAreExactAndLargerOnesKeepThreeSignificantDigits() {
        for (long v : new long[] {0, 1, 7, 2047}) {
            assertEquals(v, LatencyHistogram.highestValue(LatencyHistogram.index(v)));
        }
        // 2048 .. 4095: buckets of 2 ns; 1 ms: buckets of 1024 ns (1,000,000 lies in [999,424, 1,000,447])
        assertEquals(2049, LatencyHistogram.highestValue(LatencyHistogram.index(2048)));
        assertEquals(2049, LatencyHistogram.highestValue(LatencyHistogram.index(2049)));
        assertEquals(2051, LatencyHistogram.highestValue(LatencyHistogram.index(2050)));
        long[] probes = {4095, 4096, 123_456, 1_000_000, 987_654_321L, LatencyHistogram.MAX_VALUE};
        for (long v : probes) {
            long high = LatencyHistogram.highestValue(LatencyHistogram.index(v));
            assertTrue(high >= v && high - v <= v / 1000, v + " lands in a bucket ending at " + high);
            assertTrue(LatencyHistogram.index(high + 1) == LatencyHistogram.index(v) + 1,
                    "the next value starts the next bucket: " + v);
        }
    }

    @Test
    void recordingAMillionLatenciesAllocatesNothing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < 200_000; i++) { // warm up: compiled code
            h.record(1_000 + (i * 7919L) % 5_000_000);
        }
        long id = Thread.currentThread().threadId();
        long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < 1_000_000; i++) {
            h.record(1_000 + (i * 7919L) % 50_000_000);
        }
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        assertTrue(allocated < 1024, "recording allocated " + allocated + " bytes");
        assertEquals(1_200_000, h.count());
    }
}
