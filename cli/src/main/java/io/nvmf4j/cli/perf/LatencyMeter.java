package io.nvmf4j.cli.perf;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import java.util.concurrent.TimeUnit;

/**
 * Latency of one kind of I/O: a fixed-range {@link LatencyHistogram} (three significant digits, so p99.99 is a real
 * order statistic once there are 10,000 samples, not a bucket edge) that covers the whole measured window, plus a
 * Micrometer {@link FunctionTimer} (count, total) and percentile gauges read from it when scraped. Recording
 * allocates nothing: Micrometer's own percentile histogram resized itself on the completion thread.
 */
public final class LatencyMeter {

    /** The percentiles of the table, then extra points for the percentile curve of the report. */
    static final double[] TABLE_PERCENTILES = {0.5, 0.9, 0.99, 0.999, 0.9999};
    static final double[] CURVE_PERCENTILES = {0.01, 0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9,
        0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99995, 0.99999};

    private final LatencyHistogram histogram = new LatencyHistogram();

    /**
     * @param publishPercentiles also publish gauges {@code nvmf4j.perf.latency.percentile{quantile=...}} (seconds)
     *                           for the table's percentiles, computed at scrape time
     */
    public LatencyMeter(MeterRegistry registry, String op, String run, boolean publishPercentiles) {
        FunctionTimer.builder("nvmf4j.perf.latency", histogram, LatencyHistogram::count,
                        LatencyHistogram::sumNanos, TimeUnit.NANOSECONDS)
                .description("Completion latency of perf I/O, submit to completion")
                .tag("op", op)
                .tag("run", run)
                .register(registry);
        if (publishPercentiles) {
            for (double p : TABLE_PERCENTILES) {
                double[] one = {p};
                Gauge.builder("nvmf4j.perf.latency.percentile", histogram, h -> h.valuesAt(one)[0] / 1e9)
                        .description("Completion latency percentile of perf I/O over the run so far, seconds")
                        .tag("op", op)
                        .tag("run", run)
                        .tag("quantile", Double.toString(p))
                        .register(registry);
            }
        }
    }

    /** Called once per completed I/O on a completion thread: no allocation. */
    public void record(long nanos) {
        histogram.record(nanos);
    }

    /** The statistics of everything recorded so far. */
    public LatencyStats stats() {
        long n = histogram.count();
        if (n == 0) {
            return LatencyStats.EMPTY;
        }
        long[] table = histogram.valuesAt(TABLE_PERCENTILES);
        long[] curve = histogram.valuesAt(CURVE_PERCENTILES);
        double[] tableUs = new double[table.length];
        for (int i = 0; i < table.length; i++) {
            tableUs[i] = table[i] / 1000.0;
        }
        double[] curveUs = new double[curve.length];
        for (int i = 0; i < curve.length; i++) {
            curveUs[i] = curve[i] / 1000.0;
        }
        return new LatencyStats(n, histogram.sumNanos() / 1000.0 / n, tableUs, histogram.maxNanos() / 1000.0,
                CURVE_PERCENTILES.clone(), curveUs, histogram.minNanos() / 1000.0, histogram.stddevNanos() / 1000.0);
    }
}
