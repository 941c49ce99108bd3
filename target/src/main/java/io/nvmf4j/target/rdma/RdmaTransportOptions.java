package io.nvmf4j.target.rdma;

import java.time.Duration;

/**
 * How the RDMA transport runs: which provider, how many poll groups, how long an idle poll group spins before it
 * blocks, and how much registered memory each poll group has for data.
 *
 * @param provider         provider name ({@code softiwarp}, {@code ibverbs}) or {@code auto}
 * @param device           device name, or null for the provider's first device
 * @param pollGroups       poll-group threads, each owning a set of queue pairs and one completion queue
 * @param spinBudget       how long an idle poll group busy-polls its completion queue before it blocks (a thread
 *                         wake-up costs ~55 µs on a 2-vCPU machine, a polled round trip ~7 µs: DESIGN.md)
 * @param bufferPoolBytes  registered data-buffer memory per poll group (rounded up to whole largest buffers)
 * @param completionQueueEntries completion queue size per poll group; a connection that would not fit is refused
 *                         with NO_RSC
 * @param trace            log every request state transition at TRACE level
 */
public record RdmaTransportOptions(String provider, String device, int pollGroups, Duration spinBudget,
                                   long bufferPoolBytes, int completionQueueEntries, boolean trace) {

    public RdmaTransportOptions {
        if (provider == null || provider.isBlank()) {
            provider = "auto";
        }
        if (pollGroups < 1) {
            throw new IllegalArgumentException("poll groups must be at least 1, got " + pollGroups);
        }
        if (spinBudget == null || spinBudget.isNegative()) {
            throw new IllegalArgumentException("spin budget must be zero or positive");
        }
        if (bufferPoolBytes < 4096) {
            throw new IllegalArgumentException("buffer pool of " + bufferPoolBytes + " bytes is too small");
        }
        if (completionQueueEntries < 64) {
            throw new IllegalArgumentException("completion queue of " + completionQueueEntries + " entries is too small");
        }
    }

    /** {@link #defaultPollGroups()} poll groups, 100 µs spin, 32 MiB of buffers per group, 16384 CQ entries, no tracing. */
    public static RdmaTransportOptions defaults() {
        return new RdmaTransportOptions("auto", null, defaultPollGroups(), Duration.ofNanos(100_000),
                32L << 20, 16384, false);
    }

    /**
     * Half the cores, at least one: a poll group spins, and spinning threads beyond the cores left to the backends
     * and to a host on the same machine cost more than they give. Measured on a 2-core VM with the host there too:
     * perf with 2 queues at QD32 did 11k IOPS against 2 poll groups, 49k against 1 (SPDK's default reactor mask
     * is one core, too). {@code --poll-groups} overrides.
     */
    public static int defaultPollGroups() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }

    public RdmaTransportOptions withProvider(String name) {
        return new RdmaTransportOptions(name, device, pollGroups, spinBudget, bufferPoolBytes, completionQueueEntries,
                trace);
    }

    public RdmaTransportOptions withPollGroups(int count) {
        return new RdmaTransportOptions(provider, device, count, spinBudget, bufferPoolBytes, completionQueueEntries,
                trace);
    }

    public RdmaTransportOptions withSpinBudget(Duration budget) {
        return new RdmaTransportOptions(provider, device, pollGroups, budget, bufferPoolBytes, completionQueueEntries,
                trace);
    }

    public RdmaTransportOptions withBufferPoolBytes(long bytes) {
        return new RdmaTransportOptions(provider, device, pollGroups, spinBudget, bytes, completionQueueEntries,
                trace);
    }

    public RdmaTransportOptions withTrace(boolean on) {
        return new RdmaTransportOptions(provider, device, pollGroups, spinBudget, bufferPoolBytes,
                completionQueueEntries, on);
    }
}
