package io.nvmf4j.cli.perf;

import java.time.Duration;

/**
 * One perf run as asked for on the command line.
 *
 * @param workload    {@code -w}
 * @param ioSize      {@code -o}: bytes per I/O, a multiple of the block size
 * @param depth       {@code -q}: I/Os outstanding per queue
 * @param queues      {@code --queues}: I/O queues, each driven from its own completion thread
 * @param readPercent {@code -M}: read share of a mixed workload
 * @param duration    {@code -t}: the measured window
 * @param ramp        {@code --ramp}: I/O before the window, not measured
 * @param verify      {@code --verify}: write stamped patterns and check every read
 * @param regionBytes bytes of the namespace to use from LBA 0 (0: all of it)
 */
public record PerfSpec(Workload workload, int ioSize, int depth, int queues, int readPercent, Duration duration,
        Duration ramp, boolean verify, long regionBytes) {

    public PerfSpec {
        if (ioSize < 1) {
            throw new IllegalArgumentException("I/O size must be positive: " + ioSize);
        }
        if (depth < 1) {
            throw new IllegalArgumentException("queue depth must be at least 1: " + depth);
        }
        if (queues < 1) {
            throw new IllegalArgumentException("queues must be at least 1: " + queues);
        }
        if (readPercent < 0 || readPercent > 100) {
            throw new IllegalArgumentException("-M read percentage outside 0..100: " + readPercent);
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("-t must be positive");
        }
        if (ramp.isNegative()) {
            throw new IllegalArgumentException("--ramp must not be negative");
        }
    }

    public int effectiveReadPercent() {
        return workload.readPercent(readPercent);
    }

    /** "randread 4096 B, QD 32 x 1 queue": the heading of a run. */
    public String describe() {
        String mix = workload.mixed() ? " (" + readPercent + "% reads)" : "";
        return workload.label() + mix + ", " + ioSize + "-byte I/O, queue depth " + depth + " x " + queues
                + (queues == 1 ? " queue" : " queues") + ", " + seconds(duration) + " s"
                + (ramp.isZero() ? "" : " after " + seconds(ramp) + " s ramp") + (verify ? ", verify" : "");
    }

    private static String seconds(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? Long.toString(ms / 1000) : String.format(java.util.Locale.ROOT, "%.1f", ms / 1000.0);
    }
}
