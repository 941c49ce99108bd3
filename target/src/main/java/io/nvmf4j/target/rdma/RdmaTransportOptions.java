package io.nvmf4j.target.rdma;

import java.time.Duration;

/**
 * How the RDMA transport runs: which provider, how many poll groups, how long an idle poll group spins before it
 * blocks, how much registered memory each poll group has for data, and the limits that keep a hostile or broken
 * peer from holding the target's resources (every stage is timed, every peer-held resource is capped). Build with
 * {@link #builder}; every option not set keeps the default {@link #defaults()} has.
 *
 * @param provider         provider name ({@code softiwarp}, {@code ibverbs}) or {@code auto}
 * @param device           device name, or null for the provider's first device
 * @param pollGroups       poll-group threads, each owning a set of queue pairs and one completion queue
 * @param spinBudget       how long an idle poll group busy-polls its completion queue before it blocks: a request
 *                         that arrives within it is taken without a thread wake-up, which costs several polled
 *                         round trips (the figures are in bench/README.md)
 * @param bufferPoolBytes  registered data-buffer memory per poll group (rounded up to whole largest buffers)
 * @param completionQueueEntries completion queue size per poll group; a connection that would not fit is refused
 *                         with NO_RSC. A queue that has not completed Connect reserves only the room of its one
 *                         Connect capsule; the room for its full depth is reserved when its Connect is executed
 * @param trace            log every request state transition at TRACE level
 * @param connectTimeout   how long an accepted RDMA connection may go without a successful NVMe Connect before
 *                         the target closes it (default 10 s; Linux nvmet-rdma has no such timer, its hosts send
 *                         Connect within milliseconds of the CM's ESTABLISHED event)
 * @param readTimeout      how long the target waits for the Read Response of an RDMA Read it posted to fetch a
 *                         host's data before it ends the connection (default 10 s; the host's own I/O timeout is
 *                         30 s, so a live host is never cut off by this)
 * @param queueBufferBytes the most pool memory one queue may hold at once (0: a quarter of the pool, at least
 *                         one largest buffer); requests beyond it wait for the queue's own buffers
 * @param maxUnconnectedPerGroup queues per poll group that have not completed Connect; more are refused with
 *                         NO_RSC (default 128)
 * @param maxUnconnectedPerAddress queues from one peer IP address that have not completed Connect, over the whole
 *                         transport; more are refused with NO_RSC (default 64)
 */
public record RdmaTransportOptions(String provider, String device, int pollGroups, Duration spinBudget,
                                   long bufferPoolBytes, int completionQueueEntries, boolean trace,
                                   Duration connectTimeout, Duration readTimeout, long queueBufferBytes,
                                   int maxUnconnectedPerGroup, int maxUnconnectedPerAddress) {

    /** Default {@link #connectTimeout()}. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** Default {@link #readTimeout()}. */
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(10);
    /** Default {@link #maxUnconnectedPerGroup()}. */
    public static final int DEFAULT_MAX_UNCONNECTED_PER_GROUP = 128;
    /** Default {@link #maxUnconnectedPerAddress()}. */
    public static final int DEFAULT_MAX_UNCONNECTED_PER_ADDRESS = 64;

    /** Checks every option; {@link Builder#build} is the one caller (the record needs it public). */
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
        if (connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connect timeout must be positive");
        }
        if (readTimeout == null || readTimeout.isNegative() || readTimeout.isZero()) {
            throw new IllegalArgumentException("RDMA Read timeout must be positive");
        }
        if (queueBufferBytes < 0) {
            throw new IllegalArgumentException("per-queue buffer limit must be 0 (automatic) or positive");
        }
        if (maxUnconnectedPerGroup < 1 || maxUnconnectedPerAddress < 1) {
            throw new IllegalArgumentException("limits of unconnected queues must be at least 1");
        }
    }

    /** {@link #defaultPollGroups()} poll groups, 100 µs spin, 32 MiB of buffers per group, 16384 CQ entries, no tracing. */
    public static RdmaTransportOptions defaults() {
        return builder().build();
    }

    /** A builder with every option at its default ({@link #defaults()}). */
    public static Builder builder() {
        return new Builder();
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

    /** The per-queue pool limit in effect for a pool of {@code poolBytes} whose largest buffer is {@code largest}. */
    long queueBufferLimit(long poolBytes, long largest) {
        long limit = queueBufferBytes != 0 ? queueBufferBytes : poolBytes / 4;
        return Math.max(limit, largest);
    }

    /** A builder holding these options, to change some of them. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.provider = provider;
        b.device = device;
        b.pollGroups = pollGroups;
        b.spinBudget = spinBudget;
        b.bufferPoolBytes = bufferPoolBytes;
        b.completionQueueEntries = completionQueueEntries;
        b.trace = trace;
        b.connectTimeout = connectTimeout;
        b.readTimeout = readTimeout;
        b.queueBufferBytes = queueBufferBytes;
        b.maxUnconnectedPerGroup = maxUnconnectedPerGroup;
        b.maxUnconnectedPerAddress = maxUnconnectedPerAddress;
        return b;
    }

    /** Mutable builder with the defaults above; {@link #build} checks the values. */
    public static final class Builder {
        private String provider = "auto";
        private String device;
        private int pollGroups = defaultPollGroups();
        private Duration spinBudget = Duration.ofNanos(100_000);
        private long bufferPoolBytes = 32L << 20;
        private int completionQueueEntries = 16384;
        private boolean trace;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration readTimeout = DEFAULT_READ_TIMEOUT;
        private long queueBufferBytes;
        private int maxUnconnectedPerGroup = DEFAULT_MAX_UNCONNECTED_PER_GROUP;
        private int maxUnconnectedPerAddress = DEFAULT_MAX_UNCONNECTED_PER_ADDRESS;

        private Builder() {
        }

        public Builder provider(String v) { this.provider = v; return this; }
        public Builder device(String v) { this.device = v; return this; }
        public Builder pollGroups(int v) { this.pollGroups = v; return this; }
        public Builder spinBudget(Duration v) { this.spinBudget = v; return this; }
        public Builder bufferPoolBytes(long v) { this.bufferPoolBytes = v; return this; }
        public Builder completionQueueEntries(int v) { this.completionQueueEntries = v; return this; }
        public Builder trace(boolean v) { this.trace = v; return this; }
        public Builder connectTimeout(Duration v) { this.connectTimeout = v; return this; }
        public Builder readTimeout(Duration v) { this.readTimeout = v; return this; }
        public Builder queueBufferBytes(long v) { this.queueBufferBytes = v; return this; }
        public Builder maxUnconnectedPerGroup(int v) { this.maxUnconnectedPerGroup = v; return this; }
        public Builder maxUnconnectedPerAddress(int v) { this.maxUnconnectedPerAddress = v; return this; }

        public RdmaTransportOptions build() {
            return new RdmaTransportOptions(provider, device, pollGroups, spinBudget, bufferPoolBytes,
                    completionQueueEntries, trace, connectTimeout, readTimeout, queueBufferBytes,
                    maxUnconnectedPerGroup, maxUnconnectedPerAddress);
        }
    }
}
