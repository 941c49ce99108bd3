package io.nvmf4j.target.rdma;

/**
 * The bound on a peer's transmit progress (issue 27): read data goes to the host by RDMA Write chained before the
 * response Send, and the request keeps its pool buffer until that Send completes. A peer that does not take what
 * is sent (softiwarp: a TCP receive window it never opens; an RNIC: a host that never acknowledges) would keep
 * the buffers forever, and with a few connections the whole pool, so that other hosts' commands wait for a
 * buffer. The discovery subsystem needs no authentication, so any peer can ask for 1 MiB reads. Checked per
 * queue in the poll group's housekeeping round (every 100 ms), next to the RDMA Read timeout it mirrors; the
 * queue that breaks it loses its connection ({@code transmit_stalled} in {@code nvmf4j_rejected_total}):
 * <ul>
 *   <li>time: a response (with or without data) posted longer ago than the Read timeout
 *       ({@link RdmaTransportOptions#readTimeout()}, 10 s) and not completed: the peer took nothing of it;</li>
 *   <li>memory: more than half the queue's share of the pool ({@link QueueBufferQuota}, a quarter of the pool) in
 *       data posted more than {@link #STALL_NANOS} ago and not completed: a peer that reads slowly may hold
 *       buffers briefly, but not pin the pool for the whole time bound.</li>
 * </ul>
 * A breach counts only when two consecutive rounds see it: a round can come after the poll thread was held off
 * the CPU and has reaped one batch of completions only, and a Send that completed then must not look stalled.
 * Runs on the poll group's thread only; no allocation.
 */
final class TransmitProgress {

    /** Unsent data older than this counts against the memory bound. */
    static final long STALL_NANOS = 1_000_000_000L;

    private final QueueCloser queue;
    private final QueueMemory memory;
    /** The queue's share of the pool ({@link PollGroup#queueBufferLimit()}). */
    private final long queueBufferLimit;
    /** The previous round saw a breach. */
    private boolean breachSeen;

    TransmitProgress(QueueCloser queue, QueueMemory memory, long queueBufferLimit) {
        this.queue = queue;
        this.memory = memory;
        this.queueBufferLimit = queueBufferLimit;
    }

    /** True (and the queue rejected) when the peer broke the bound at {@code now} and in the round before. */
    boolean check(long now, long timeoutNanos) {
        long stalledBytes = 0;
        long oldest = 0;
        for (RdmaRequest r : memory.requests()) {
            if (r == null || (r.state != RdmaRequestState.TRANSFERRING_CONTROLLER_TO_HOST
                    && r.state != RdmaRequestState.COMPLETING)) {
                continue;
            }
            long age = now - r.responsePostedNanos;
            oldest = Math.max(oldest, age);
            if (age > STALL_NANOS && r.bufferOffset >= 0) {
                stalledBytes += r.transferLength;
            }
        }
        long share = queueBufferLimit / 2;
        boolean late = oldest > timeoutNanos;
        boolean over = stalledBytes > share;
        if (!late && !over) {
            breachSeen = false;
            return false;
        }
        if (!breachSeen) {
            breachSeen = true;
            return false;
        }
        if (late) {
            queue.reject(RejectReason.TRANSMIT_STALLED, "the peer took no response for "
                    + timeoutNanos / 1_000_000 + " ms (its receive window stays shut)");
        } else {
            queue.reject(RejectReason.TRANSMIT_STALLED, stalledBytes + " bytes of read data unsent for over "
                    + STALL_NANOS / 1_000_000 + " ms, more than the queue's share of " + share + " bytes");
        }
        return true;
    }
}
