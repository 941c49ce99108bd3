package io.nvmf4j.initiator;

/**
 * How a {@link MultipathController} spreads I/O over the paths of the best ANA state, with the names of Linux's
 * {@code iopolicy} ({@code drivers/nvme/host/multipath.c}, {@code nvme_iopolicy_names}).
 */
public enum MultipathPolicy {
    /** nvme_round_robin_path(): each I/O goes to the next usable path after the one used last. */
    ROUND_ROBIN("round-robin"),
    /** nvme_queue_depth_path(): the usable path with the fewest I/Os in flight. */
    QUEUE_DEPTH("queue-depth");

    private final String label;

    MultipathPolicy(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** By Linux's name ("round-robin", "queue-depth"). */
    public static MultipathPolicy of(String label) {
        for (MultipathPolicy p : values()) {
            if (p.label.equals(label)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown multipath I/O policy '" + label + "' (round-robin, queue-depth)");
    }
}
