package io.nvmf4j.target.rdma;

/**
 * A read-only snapshot of one poll group for operators (SPDK's {@code nvmf_get_stats} per poll group: {@code polls},
 * {@code idle_polls}; its transport's buffer pool use). The counters are written by the poll-group thread alone
 * with plain (opaque) stores, no lock and no allocation on the data path, and read here with opaque loads: each
 * value is whole and recent, the values of one snapshot are not taken at one instant.
 *
 * @param group            poll group id (0 .. pollGroups - 1), a bounded label
 * @param busyPolls        polls of the completion queue that reaped at least one completion
 * @param idlePolls        polls that found it empty (spin-budget rounds and blocking waits that timed out)
 * @param bufferBytesFree  bytes of the group's registered data buffer pool not handed to a request
 * @param bufferBytesTotal the pool's size in bytes
 * @param queues           queue pairs served by the group (admin and I/O, connected or connecting)
 */
public record PollGroupStats(int group, long busyPolls, long idlePolls, long bufferBytesFree, long bufferBytesTotal,
                             int queues) {

    /** Bytes of the pool held by requests (data being moved or handed to a backend). */
    public long bufferBytesUsed() {
        return bufferBytesTotal - bufferBytesFree;
    }
}
