package io.nvmf4j.cli.perf;

import java.util.concurrent.atomic.AtomicReference;

/** The phase every worker reads on each completion, and the first failure, shared by the workers of one run. */
final class RunControl {

    static final int PREFILL = 0;
    static final int RAMP = 1;
    static final int MEASURE = 2;
    static final int STOP = 3;

    private volatile int phase = RAMP;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** perf --trace-outliers: the slow I/Os of the measured window, or null. */
    private final OutlierTrace outliers;

    RunControl() {
        this(null);
    }

    RunControl(OutlierTrace outliers) {
        this.outliers = outliers;
    }

    OutlierTrace outliers() {
        return outliers;
    }

    int phase() {
        return phase;
    }

    void phase(int p) {
        phase = p;
    }

    boolean measuring() {
        return phase == MEASURE;
    }

    boolean stopped() {
        return phase == STOP;
    }

    /** Records the first failure and stops the run (fio's default: stop on the first error). */
    void fail(Throwable t) {
        failure.compareAndSet(null, t);
        phase = STOP;
    }

    Throwable failure() {
        return failure.get();
    }
}
