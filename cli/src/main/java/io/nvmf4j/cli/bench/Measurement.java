package io.nvmf4j.cli.bench;

import io.nvmf4j.cli.perf.LatencyHistogram;

/**
 * One row's figure for one transport.
 *
 * @param value          median round trip in microseconds, or bandwidth in MB/s (10^6 bytes per second)
 * @param p99            99th percentile round trip in microseconds (NaN for bandwidth)
 * @param operations     operations in the measured window
 * @param allocatedBytes heap bytes allocated by all threads of the JVM in the window
 * @param collections    garbage collections in the window
 * @param topAllocators  the threads that allocated most in the window, with their bytes
 * @param failure        why the figure is missing, or null
 */
record Measurement(double value, double p99, long operations, long allocatedBytes, long collections,
        String topAllocators, String failure) {

    private static final double[] MEDIAN_AND_P99 = {0.5, 0.99};

    static Measurement latency(LatencyHistogram stats, AllocationMeter meter) {
        long[] q = stats.valuesAt(MEDIAN_AND_P99);
        return new Measurement(stats.count() == 0 ? Double.NaN : q[0] / 1000.0,
                stats.count() == 0 ? Double.NaN : q[1] / 1000.0, stats.count(),
                meter.allocatedBytes(), meter.collections(), meter.topAllocators(3), null);
    }

    static Measurement bandwidth(long bytes, long nanos, long operations, AllocationMeter meter) {
        return new Measurement(bytes * 1000.0 / nanos, Double.NaN, operations, meter.allocatedBytes(),
                meter.collections(), meter.topAllocators(3), null);
    }

    /** A figure that could not be measured: the table shows "failed" and the reason below it. */
    static Measurement failed(Exception e) {
        return new Measurement(Double.NaN, Double.NaN, 0, 0, 0, "", e.getClass().getSimpleName() + ": "
                + e.getMessage());
    }

    double bytesPerOperation() {
        return operations == 0 ? Double.NaN : (double) allocatedBytes / operations;
    }
}
