package io.nvmf4j.cli.perf;

import java.util.Locale;

/**
 * The access pattern, with fio's and SPDK {@code nvme perf}'s names ({@code -w}): sequential or random, reads,
 * writes or a mix whose read share is {@code -M} (fio {@code rwmixread}, SPDK {@code -M}).
 */
public enum Workload {
    READ(false, 100),
    WRITE(false, 0),
    RANDREAD(true, 100),
    RANDWRITE(true, 0),
    RW(false, -1),
    RANDRW(true, -1);

    private final boolean random;
    private final int fixedReadPercent;

    Workload(boolean random, int fixedReadPercent) {
        this.random = random;
        this.fixedReadPercent = fixedReadPercent;
    }

    public boolean random() {
        return random;
    }

    /** True for rw/randrw, whose read share comes from -M. */
    public boolean mixed() {
        return fixedReadPercent < 0;
    }

    /** The share of reads in percent: fixed for the pure workloads, {@code mixPercent} for the mixed ones. */
    public int readPercent(int mixPercent) {
        return mixed() ? mixPercent : fixedReadPercent;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** picocli converter: accepts the fio/SPDK spelling in any case. */
    public static Workload parse(String text) {
        try {
            return valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + text + "' is not a workload (read, write, randread, randwrite, "
                    + "rw, randrw)");
        }
    }
}
