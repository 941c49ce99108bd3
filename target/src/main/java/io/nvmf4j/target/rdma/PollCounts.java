package io.nvmf4j.target.rdma;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A poll group's polls of its completion queue that reaped completions and that found none (SPDK's
 * {@code polls - idle_polls} and {@code idle_polls} of {@code nvmf_get_stats}), for {@link PollGroupStats}. Written by
 * the poll group's thread only, by opaque stores (no fence, no lock, no allocation); read from any thread with opaque
 * loads.
 */
final class PollCounts {

    private static final VarHandle BUSY_POLLS;
    private static final VarHandle IDLE_POLLS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            BUSY_POLLS = l.findVarHandle(PollCounts.class, "busyPolls", long.class);
            IDLE_POLLS = l.findVarHandle(PollCounts.class, "idlePolls", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long busyPolls;
    private long idlePolls;

    /** Counts one poll of the completion queue that returned {@code n} completions (poll thread only). */
    void count(int n) {
        if (n > 0) {
            BUSY_POLLS.setOpaque(this, busyPolls + 1);
        } else {
            IDLE_POLLS.setOpaque(this, idlePolls + 1);
        }
    }

    long busy() {
        return (long) BUSY_POLLS.getOpaque(this);
    }

    long idle() {
        return (long) IDLE_POLLS.getOpaque(this);
    }
}
