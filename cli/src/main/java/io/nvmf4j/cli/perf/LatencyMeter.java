package io.nvmf4j.cli.perf;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Latency of one kind of I/O as a Micrometer {@link Timer} with client-side percentiles.
 *
 * <p>Precision: Micrometer keeps percentiles in an HdrHistogram; {@code percentilePrecision(3)} keeps three
 * significant digits (a 1234 µs latency lands within ±1 µs), so p99.99 is a real order statistic once there are
 * 10,000 samples, not a bucket edge. The statistics window is made longer than the run, so no sample ages out and
 * the percentiles cover the whole measured window (Micrometer's default would forget after two minutes).
 */
public final class LatencyMeter {

    /** The percentiles of the table, then extra points for the percentile curve of the report. */
    public static final double[] TABLE_PERCENTILES = {0.5, 0.9, 0.99, 0.999, 0.9999};
    static final double[] CURVE_PERCENTILES = {0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995,
        0.9999, 0.99995, 0.99999};

    private final Timer timer;

    public LatencyMeter(MeterRegistry registry, String op, String run, Duration window, boolean publishHistogram) {
        this.timer = Timer.builder("nvmf4j.perf.latency")
                .description("Completion latency of perf I/O, submit to completion")
                .tag("op", op)
                .tag("run", run)
                .publishPercentiles(CURVE_PERCENTILES)
                .percentilePrecision(3)
                .publishPercentileHistogram(publishHistogram)
                .minimumExpectedValue(Duration.ofNanos(500))
                .maximumExpectedValue(Duration.ofSeconds(60))
                .distributionStatisticExpiry(window.plusHours(1))
                .distributionStatisticBufferLength(1)
                .register(registry);
    }

    /** Called once per completed I/O on a completion thread: no allocation on Micrometer's recording path. */
    public void record(long nanos) {
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    public Timer timer() {
        return timer;
    }

    /** The statistics of everything recorded so far. */
    public LatencyStats stats() {
        HistogramSnapshot s = timer.takeSnapshot();
        ValueAtPercentile[] values = s.percentileValues();
        double[] table = new double[TABLE_PERCENTILES.length];
        double[] curveP = new double[values.length];
        double[] curveUs = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            curveP[i] = values[i].percentile();
            curveUs[i] = values[i].value(TimeUnit.NANOSECONDS) / 1000.0;
            for (int t = 0; t < TABLE_PERCENTILES.length; t++) {
                if (Math.abs(TABLE_PERCENTILES[t] - values[i].percentile()) < 1e-12) {
                    table[t] = curveUs[i];
                }
            }
        }
        // A percentile is the upper edge of its HdrHistogram bucket (3 significant digits), which can sit a hair
        // above the exact maximum: no percentile is shown above the largest latency actually seen.
        double max = s.max(TimeUnit.NANOSECONDS) / 1000.0;
        for (int t = 0; t < table.length; t++) {
            table[t] = Math.min(table[t], max);
        }
        for (int i = 0; i < curveUs.length; i++) {
            curveUs[i] = Math.min(curveUs[i], max);
        }
        return new LatencyStats(s.count(), s.mean(TimeUnit.NANOSECONDS) / 1000.0, table, max, curveP, curveUs);
    }
}
