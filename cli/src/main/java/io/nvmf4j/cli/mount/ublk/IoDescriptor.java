package io.nvmf4j.cli.mount.ublk;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

/**
 * {@code struct ublksrv_io_desc} (24 bytes): one request as the driver describes it in the queue's descriptor array,
 * which the server maps read-only from {@code /dev/ublkcN} and reads at {@code tag * 24} when that tag's fetch
 * completes. The operation is the low 8 bits of {@code op_flags} ({@code ublksrv_get_op}), {@code UBLK_IO_F_*} the
 * rest; sectors are 512 bytes whatever the device's logical block size.
 */
public final class IoDescriptor {
    public static final int SIZE = 24;
    static final long OP_FLAGS = 0;       // __u32
    static final long NR_SECTORS = 4;     // __u32 (nr_zones for REPORT_ZONES)
    static final long START_SECTOR = 8;   // __u64
    static final long ADDR = 16;          // __u64: the buffer FETCH_REQ named for this tag

    /** {@code UBLKSRV_CMD_BUF_OFFSET}: queue 0's descriptors, in the char device's mmap space. */
    static final long CMD_BUF_OFFSET = 0;

    public static final int OP_READ = 0;
    public static final int OP_WRITE = 1;
    public static final int OP_FLUSH = 2;
    public static final int OP_DISCARD = 3;
    public static final int OP_WRITE_SAME = 4;
    public static final int OP_WRITE_ZEROES = 5;

    public static final int F_FAILFAST_DEV = 1 << 8;
    public static final int F_FAILFAST_TRANSPORT = 1 << 9;
    public static final int F_FAILFAST_DRIVER = 1 << 10;
    public static final int F_META = 1 << 11;
    /** {@code UBLK_IO_F_FUA}: the write is durable when committed (REQ_FUA). */
    public static final int F_FUA = 1 << 13;
    /** {@code UBLK_IO_F_NOUNMAP}: a Write Zeroes that must not deallocate. */
    public static final int F_NOUNMAP = 1 << 15;
    public static final int F_SWAP = 1 << 16;

    private IoDescriptor() {
    }

    /** The descriptor of {@code tag} in a queue's mapped array. */
    public static MemorySegment of(MemorySegment descriptors, int tag) {
        return descriptors.asSlice((long) tag * SIZE, SIZE);
    }

    public static int op(MemorySegment descriptor) {
        return descriptor.get(JAVA_INT, OP_FLAGS) & 0xff;
    }

    public static int flags(MemorySegment descriptor) {
        return descriptor.get(JAVA_INT, OP_FLAGS) & ~0xff;
    }

    public static long sectors(MemorySegment descriptor) {
        return Integer.toUnsignedLong(descriptor.get(JAVA_INT, NR_SECTORS));
    }

    public static long startSector(MemorySegment descriptor) {
        return descriptor.get(JAVA_LONG, START_SECTOR);
    }

    public static long address(MemorySegment descriptor) {
        return descriptor.get(JAVA_LONG, ADDR);
    }

    /**
     * The mmap offset of queue {@code queueId}'s descriptors in {@code /dev/ublkcN}: the driver sizes every queue's
     * slot for the deepest queue ({@code ublk_max_cmd_buf_size()}: {@code UBLK_MAX_QUEUE_DEPTH} descriptors, rounded
     * up to a page) and derives the queue from the offset ({@code ublk_ch_mmap}).
     */
    public static long mapOffset(int queueId, long pageSize) {
        return CMD_BUF_OFFSET + queueId * roundUp((long) DeviceInfo.MAX_QUEUE_DEPTH * SIZE, pageSize);
    }

    /**
     * The length to map for a queue of {@code queueDepth}: {@code ublk_queue_cmd_buf_size()}, the queue's own
     * descriptors rounded up to a page; ublk_ch_mmap refuses any other length with EINVAL.
     */
    public static long mapLength(int queueDepth, long pageSize) {
        return roundUp((long) queueDepth * SIZE, pageSize);
    }

    private static long roundUp(long bytes, long pageSize) {
        return (bytes + pageSize - 1) / pageSize * pageSize;
    }
}
