package io.nvmf4j.cli.perf;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A fixed-size log-linear histogram of nanosecond latencies with three significant digits, laid out like
 * HdrHistogram (2048 sub-buckets per power of two): values below 2048 ns are exact, above that each bucket spans
 * 1/1024 of its power of two (0.1 %). Sized once for 1 ns .. 2^40 ns (~18 minutes), so recording never resizes
 * or allocates (perf's completion threads and the verbs bench record into it) - Micrometer's auto-resizing HdrHistogram allocated on the completion thread whenever a rotation
 * started a fresh one. Recording is lock-free and safe from several completion threads.
 */
public final class LatencyHistogram {
    private static final int SUB_BUCKET_BITS = 11;
    private static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;       // 2048
    private static final int HALF = SUB_BUCKETS >>> 1;                  // 1024
    private static final int MAX_SHIFT = 40 - SUB_BUCKET_BITS + 1;
    static final long MAX_VALUE = (1L << 40) - 1;

    private final AtomicLongArray counts = new AtomicLongArray(SUB_BUCKETS + MAX_SHIFT * HALF);
    private final AtomicLong count = new AtomicLong();
    private final AtomicLong sum = new AtomicLong();
    private final AtomicLong max = new AtomicLong();

    /** Bucket of a value: exact below 2048, else the top 11 significant bits. */
    static int index(long value) {
        if (value < SUB_BUCKETS) {
            return (int) Math.max(0, value);
        }
        int shift = 63 - Long.numberOfLeadingZeros(value) - (SUB_BUCKET_BITS - 1); // >= 1
        long sub = value >>> shift;                                              // 1024 .. 2047
        return SUB_BUCKETS + (shift - 1) * HALF + (int) (sub - HALF);
    }

    /** The largest value that lands in bucket {@code index} (HdrHistogram's highestEquivalentValue). */
    static long highestValue(int index) {
        if (index < SUB_BUCKETS) {
            return index;
        }
        int shift = (index - SUB_BUCKETS) / HALF + 1;
        long sub = ((long) index - SUB_BUCKETS) % HALF + HALF;
        return ((sub + 1) << shift) - 1;
    }

    public void record(long nanos) {
        long v = Math.min(Math.max(nanos, 0), MAX_VALUE);
        counts.incrementAndGet(index(v));
        count.incrementAndGet();
        sum.addAndGet(v);
        long m = max.get();
        while (v > m && !max.compareAndSet(m, v)) {
            m = max.get();
        }
    }

    public long count() {
        return count.get();
    }

    long sumNanos() {
        return sum.get();
    }

    long maxNanos() {
        return max.get();
    }

    /**
     * The values at the given percentiles (0..1, ascending), in nanoseconds: the smallest bucket whose cumulative
     * count reaches {@code ceil(p * count)}, as its highest equivalent value, never above the largest seen.
     */
    public long[] valuesAt(double[] percentiles) {
        long[] out = new long[percentiles.length];
        long total = count.get();
        if (total == 0) {
            return out;
        }
        long m = max.get();
        long cumulative = 0;
        int p = 0;
        for (int i = 0; i < counts.length() && p < percentiles.length; i++) {
            cumulative += counts.get(i);
            while (p < percentiles.length && cumulative >= Math.max(1, (long) Math.ceil(percentiles[p] * total))) {
                out[p++] = Math.min(highestValue(i), m);
            }
        }
        while (p < percentiles.length) {
            out[p++] = m;
        }
        return out;
    }

    /** The smallest value recorded, to the bucket's resolution (its lowest equivalent value); 0 when empty. */
    long minNanos() {
        for (int i = 0; i < counts.length(); i++) {
            if (counts.get(i) != 0) {
                return i == 0 ? 0 : Math.min(highestValue(i - 1) + 1, highestValue(i));
            }
        }
        return 0;
    }

    /** The standard deviation, from the buckets' highest values (0.1 % resolution), as fio's stddev (n - 1). */
    double stddevNanos() {
        long n = count.get();
        if (n < 2) {
            return 0;
        }
        double mean = (double) sum.get() / n;
        double squares = 0;
        for (int i = 0; i < counts.length(); i++) {
            long c = counts.get(i);
            if (c != 0) {
                double d = highestValue(i) - mean;
                squares += c * d * d;
            }
        }
        return Math.sqrt(squares / (n - 1));
    }
}
