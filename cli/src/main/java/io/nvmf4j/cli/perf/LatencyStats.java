package io.nvmf4j.cli.perf;

/**
 * Latency statistics of a run, in microseconds.
 *
 * @param count       samples
 * @param averageUs   mean
 * @param tableUs     p50, p90, p99, p99.9, p99.99 ({@link LatencyMeter#TABLE_PERCENTILES})
 * @param maxUs       maximum
 * @param curveP      percentiles of the curve (0..1)
 * @param curveUs     their values
 * @param minUs       minimum (to the histogram's 0.1 % resolution)
 * @param stddevUs    standard deviation (from the histogram)
 */
public record LatencyStats(long count, double averageUs, double[] tableUs, double maxUs, double[] curveP,
        double[] curveUs, double minUs, double stddevUs) {

    /** Without minimum and deviation (0). */
    public LatencyStats(long count, double averageUs, double[] tableUs, double maxUs, double[] curveP,
            double[] curveUs) {
        this(count, averageUs, tableUs, maxUs, curveP, curveUs, 0, 0);
    }

    /** The value at percentile {@code p} (0..1) if the curve has it, else NaN. */
    public double atPercentile(double p) {
        for (int i = 0; i < curveP.length; i++) {
            if (Math.abs(curveP[i] - p) < 1e-12) {
                return curveUs[i];
            }
        }
        return Double.NaN;
    }

    public static final LatencyStats EMPTY = new LatencyStats(0, 0, new double[LatencyMeter.TABLE_PERCENTILES.length],
            0, new double[0], new double[0]);

    public double p50() {
        return tableUs[0];
    }

    public double p90() {
        return tableUs[1];
    }

    public double p99() {
        return tableUs[2];
    }

    public double p999() {
        return tableUs[3];
    }

    public double p9999() {
        return tableUs[4];
    }

    /**
     * Whether percentile {@code p} rests on at least one sample beyond it: p99.99 needs 10,000 samples, below that
     * it is only the largest of a few and the table marks it.
     */
    public boolean resolves(double p) {
        return count * (1 - p) >= 1 - 1e-9;
    }
}
