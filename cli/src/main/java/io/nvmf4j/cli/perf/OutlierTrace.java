package io.nvmf4j.cli.perf;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The I/Os of the measured window slower than a threshold, with the monotonic time they were submitted at
 * ({@code perf --trace-outliers FILE}): the raw material for finding where a latency tail comes from (issue 17).
 * {@link System#nanoTime()} is {@code CLOCK_MONOTONIC} on Linux, the clock HotSpot's {@code -Xlog} decoration
 * {@code timenanos} (tn) prints, in every process of the machine: an outlier can be laid beside the safepoints and
 * collections of both JVMs (initiator and target) and beside the target's own trace.
 *
 * <p>Recording allocates nothing and takes no lock (one atomic increment per outlier, none for the other I/Os):
 * the arrays are made once; outliers past their capacity are counted, not kept.
 */
final class OutlierTrace {

    private final long thresholdNanos;
    private final long[] submitNanos;
    private final long[] latencyNanos;
    private final boolean[] read;
    private final AtomicInteger next = new AtomicInteger();

    OutlierTrace(long thresholdNanos, int capacity) {
        if (thresholdNanos < 0 || capacity < 1) {
            throw new IllegalArgumentException("outlier trace: threshold " + thresholdNanos + " ns, capacity "
                    + capacity);
        }
        this.thresholdNanos = thresholdNanos;
        this.submitNanos = new long[capacity];
        this.latencyNanos = new long[capacity];
        this.read = new boolean[capacity];
    }

    /** Called on a completion thread for every measured I/O. */
    void record(long submittedAt, long latency, boolean isRead) {
        if (latency < thresholdNanos) {
            return;
        }
        int i = next.getAndIncrement();
        if (i < submitNanos.length) {
            submitNanos[i] = submittedAt;
            latencyNanos[i] = latency;
            read[i] = isRead;
        }
    }

    /** Outliers seen, including those past the capacity. */
    long count() {
        return next.get();
    }

    /** Outliers kept (at most the capacity). */
    int kept() {
        return Math.min(next.get(), submitNanos.length);
    }

    /**
     * Writes {@code submit_ns,latency_ns,op} lines in submission order (call after the workers stopped). The first
     * line is a comment with the threshold and how many outliers were not kept.
     */
    void write(Path file) throws IOException {
        int n = kept();
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(submitNanos[a], submitNanos[b]));
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
            w.println("# nvmf4j perf outliers: latency >= " + thresholdNanos + " ns; " + count() + " seen, "
                    + (count() - n) + " not kept; submit_ns is CLOCK_MONOTONIC (System.nanoTime, -Xlog tn)");
            w.println("submit_ns,latency_ns,op");
            for (int k = 0; k < n; k++) {
                int i = order[k];
                w.println(submitNanos[i] + "," + latencyNanos[i] + "," + (read[i] ? "read" : "write"));
            }
        }
    }
}
