package io.nvmf4j.protocol;

/**
 * The queue sizes NVMe over Fabrics hosts and targets agree on, in one place. A queue's size is its number of
 * entries; the wire carries it 0's based (SQSIZE of Connect, NVMe-oF 1.1, 3.3.1; HSQSIZE of the RDMA CM request,
 * NVMe-oF 1.1, 7.3.3): {@link #sqsize(int)} is the one conversion.
 *
 * <p>Values as Linux {@code drivers/nvme/host/fabrics.h} and {@code drivers/nvme/target/rdma.c}.
 */
public final class QueueLimits {

    /** Entries of an admin queue ({@code NVME_AQ_DEPTH}): the host asks for it, the target accepts at most it. */
    public static final int ADMIN_QUEUE_SIZE = 32;
    /** The smallest I/O queue Linux accepts ({@code NVMF_MIN_QUEUE_SIZE}). */
    public static final int MIN_IO_QUEUE_SIZE = 16;
    /** The largest I/O queue Linux accepts ({@code NVMF_MAX_QUEUE_SIZE}). */
    public static final int MAX_IO_QUEUE_SIZE = 1024;
    /** The default I/O queue size ({@code NVMF_DEF_QUEUE_SIZE}; nvmet-rdma's {@code NVME_RDMA_MAX_QUEUE_SIZE}). */
    public static final int DEFAULT_IO_QUEUE_SIZE = 128;

    private QueueLimits() {
    }

    /** The 0's-based SQSIZE/HSQSIZE of a queue of {@code entries} entries. */
    public static int sqsize(int entries) {
        if (entries < 1) {
            throw new IllegalArgumentException("queue of " + entries + " entries");
        }
        return entries - 1;
    }
}
