package io.nvmf4j.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** Percentiles from a known set of latencies: a log-linear histogram at 3 significant digits. */
class LatencyMeterTest {

    private static void assertWithin(double expected, double actual, double relative, String what) {
        assertTrue(Math.abs(actual - expected) <= expected * relative,
                what + ": expected " + expected + " +-" + (relative * 100) + "%, got " + actual);
    }

    @Test
    void uniformOneToHundredThousandMicrosecondsGivesTheOrderStatistics() {
        LatencyMeter m = new LatencyMeter(new SimpleMeterRegistry(), "read", "t", false);
        // 1 us .. 100000 us, each once, in a scrambled order (the order must not matter).
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            long us = (i * 7919L) % n + 1;
            m.record(us * 1000);
        }
        LatencyStats s = m.stats();
        assertEquals(n, s.count());
        assertWithin(50_000.5, s.averageUs(), 1e-9, "mean");
        assertWithin(50_000, s.p50(), 0.002, "p50");
        assertWithin(90_000, s.p90(), 0.002, "p90");
        assertWithin(99_000, s.p99(), 0.002, "p99");
        assertWithin(99_900, s.p999(), 0.002, "p99.9");
        assertWithin(99_990, s.p9999(), 0.002, "p99.99");
        assertEquals(100_000.0, s.maxUs(), 1e-6);
        assertTrue(s.resolves(0.9999), "100000 samples resolve p99.99");
    }

    @Test
    void aSingleOutlierIsTheP9999OfTenThousandButNotTheP999() {
        LatencyMeter m = new LatencyMeter(new SimpleMeterRegistry(), "read", "t", false);
        for (int i = 0; i < 9_999; i++) {
            m.record(20_000); // 20 us
        }
        m.record(5_000_000); // one 5 ms stall
        LatencyStats s = m.stats();
        assertWithin(20, s.p50(), 0.002, "p50");
        assertWithin(20, s.p999(), 0.002, "p99.9");
        assertWithin(5_000, s.maxUs(), 1e-9, "max");
        assertTrue(s.p9999() <= s.maxUs(), "no percentile above the maximum");
        assertTrue(s.resolves(0.9999));
        assertFalse(new LatencyStats(9_999, 0, s.tableUs(), 0, new double[0], new double[0]).resolves(0.9999),
                "9999 samples cannot resolve p99.99");
    }

    @Test
    void meanOfAFewKnownValues() {
        LatencyMeter m = new LatencyMeter(new SimpleMeterRegistry(), "write", "t", false);
        for (long us : new long[] {10, 20, 30, 40, 1000}) {
            m.record(us * 1000);
        }
        LatencyStats s = m.stats();
        assertEquals(5, s.count());
        assertWithin(220, s.averageUs(), 1e-9, "mean");
        assertWithin(30, s.p50(), 0.01, "p50");
        assertEquals(1000, s.maxUs(), 1e-9);
    }
}
