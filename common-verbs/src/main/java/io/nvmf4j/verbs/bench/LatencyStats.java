package io.nvmf4j.verbs.bench;

import java.util.Arrays;

/**
 * Round-trip samples in nanoseconds, recorded into a preallocated array (recording never allocates),
 * summarised after the run.
 */
final class LatencyStats {
    private final long[] samples;
    private int count;
    private long dropped;

    LatencyStats(int capacity) {
        samples = new long[capacity];
    }

    void record(long nanos) {
        if (count < samples.length) {
            samples[count++] = nanos;
        } else {
            dropped++;
        }
    }

    int count() {
        return count;
    }

    long operations() {
        return count + dropped;
    }

    void clear() {
        count = 0;
        dropped = 0;
    }

    /** The {@code q}-quantile (0..1) in microseconds, nearest rank; NaN without samples. */
    double quantileMicros(double q) {
        if (count == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(q * count) - 1;
        return sorted[Math.max(0, Math.min(count - 1, rank))] / 1000.0;
    }
}
