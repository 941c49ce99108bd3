package io.nvmf4j.target.rdma;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.EnumSet;

/**
 * The registered data buffers of one poll group: one memory region cut into power-of-two blocks by a buddy
 * allocator, from {@link #MIN_BLOCK} up to the largest transfer the ports allow (MDTS). The core hands a command's
 * data to a backend as one contiguous segment, so a 1 MiB write needs 1 MiB of contiguous registered memory; a
 * buddy allocator gives that without reserving MDTS bytes for every request slot. Used by the poll group's thread
 * only: no locks, no allocation (free lists are bitmaps).
 */
final class BufferPool implements AutoCloseable {

    /** The smallest block: one 4 KiB page (NVMe's memory page size, CC.MPS 0). */
    static final int MIN_BLOCK = 4096;

    /** The memory's arena, or null when it is a direct buffer (below 2 GiB). */
    private final Arena arena;
    private final MemorySegment memory;
    private final MemoryRegion region;
    private final int maxOrder;
    private final long[][] freeBits;
    /**
     * The last slice handed out for each block of each order (filled on first use): a command of the same size on
     * the same block gets the same segment back instead of a new slice per command.
     */
    private final MemorySegment[][] slices;
    /** Written by the poll thread only (opaque stores), read by any thread (opaque loads): operators' gauges. */
    private long bytesFree;
    private static final java.lang.invoke.VarHandle BYTES_FREE;

    static {
        try {
            BYTES_FREE = java.lang.invoke.MethodHandles.lookup().findVarHandle(BufferPool.class, "bytesFree",
                    long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * @param pd           protection domain to register with
     * @param bytes        memory wanted (rounded up to a whole number of largest blocks, at least two)
     * @param largestBlock the largest single buffer (rounded up to a power of two)
     */
    @SuppressWarnings("MustBeClosedChecker") // the pool owns the arena and closes it in close()
    BufferPool(ProtectionDomain pd, long bytes, long largestBlock) throws VerbsException {
        long largest = Long.highestOneBit(Math.max(MIN_BLOCK, largestBlock) - 1) << 1;
        if (largest < MIN_BLOCK) {
            largest = MIN_BLOCK;
        }
        this.maxOrder = Long.numberOfTrailingZeros(largest / MIN_BLOCK);
        long top = Math.max(2, (bytes + largest - 1) / largest);
        long size = top * largest;
        this.freeBits = new long[maxOrder + 1][];
        for (int k = 0; k <= maxOrder; k++) {
            long blocks = top << (maxOrder - k);
            freeBits[k] = new long[(int) ((blocks + 63) / 64)];
        }
        for (int i = 0; i < top; i++) {
            setBit(maxOrder, i);
        }
        this.slices = new MemorySegment[maxOrder + 1][];
        for (int k = 0; k <= maxOrder; k++) {
            slices[k] = new MemorySegment[(int) (top << (maxOrder - k))];
        }
        this.bytesFree = size;
        if (size <= Integer.MAX_VALUE - MIN_BLOCK) {
            // a direct buffer: softiwarp sends out of it with a gathering write that allocates nothing, which
            // a memory segment's views do not allow (ProtectionDomain.register(ByteBuffer, ...)); the garbage
            // collector frees it once the region and the ring no longer refer to it
            ByteBuffer direct = ByteBuffer.allocateDirect((int) size + MIN_BLOCK).alignedSlice(MIN_BLOCK)
                    .slice(0, (int) size);
            this.arena = null;
            this.memory = MemorySegment.ofBuffer(direct);
            this.region = pd.register(direct, EnumSet.of(AccessFlag.LOCAL_WRITE));
            return;
        }
        this.arena = Arena.ofShared();
        MemoryRegion r;
        try {
            this.memory = arena.allocate(size, MIN_BLOCK);
            r = pd.register(memory, EnumSet.of(AccessFlag.LOCAL_WRITE));
        } catch (VerbsException | RuntimeException e) {
            arena.close();
            throw e;
        }
        this.region = r;
    }

    MemoryRegion region() {
        return region;
    }

    /** The whole registered memory (registered with the poll group's io_uring as one fixed buffer). */
    MemorySegment memory() {
        return memory;
    }

    /** The largest buffer this pool hands out. */
    long largestBlock() {
        return (long) MIN_BLOCK << maxOrder;
    }

    /** Free bytes; whole and recent from any thread (opaque load of the poll thread's counter). */
    long bytesFree() {
        return (long) BYTES_FREE.getOpaque(this);
    }

    long capacity() {
        return memory.byteSize();
    }

    /** The order (log2 of 4 KiB blocks) a buffer of {@code length} bytes needs. */
    static int orderFor(long length) {
        long blocks = Math.max(1, (length + MIN_BLOCK - 1) / MIN_BLOCK);
        return blocks == 1 ? 0 : 64 - Long.numberOfLeadingZeros(blocks - 1);
    }

    /** Bytes of the block a buffer of {@code length} bytes takes. */
    static long blockBytes(long length) {
        return (long) MIN_BLOCK << orderFor(length);
    }

    /** Offset into {@link #region()} of a free buffer of at least {@code length} bytes, or -1 if none is free. */
    long allocate(long length) {
        int order = orderFor(length);
        if (order > maxOrder) {
            return -1;
        }
        long index = take(order);
        if (index < 0) {
            return -1;
        }
        BYTES_FREE.setOpaque(this, bytesFree - ((long) MIN_BLOCK << order));
        return index * ((long) MIN_BLOCK << order);
    }

    /** Returns the buffer at {@code offset} that was allocated for {@code length} bytes. */
    void free(long offset, long length) {
        int order = orderFor(length);
        long index = offset / ((long) MIN_BLOCK << order);
        BYTES_FREE.setOpaque(this, bytesFree + ((long) MIN_BLOCK << order));
        while (order < maxOrder && testBit(order, index ^ 1)) {
            clearBit(order, index ^ 1);
            index >>>= 1;
            order++;
        }
        setBit(order, index);
    }

    /** The {@code length} bytes at {@code offset}, a buffer {@link #allocate} returned for that length. */
    MemorySegment slice(long offset, long length) {
        int order = orderFor(length);
        MemorySegment[] cache = slices[order];
        int index = (int) (offset / ((long) MIN_BLOCK << order));
        MemorySegment s = cache[index];
        if (s == null || s.byteSize() != length) {
            s = memory.asSlice(offset, length);
            cache[index] = s;
        }
        return s;
    }

    private long take(int order) {
        long[] bits = freeBits[order];
        for (int w = 0; w < bits.length; w++) {
            long word = bits[w];
            if (word != 0) {
                int b = Long.numberOfTrailingZeros(word);
                bits[w] = word & ~(1L << b);
                return (long) w * 64 + b;
            }
        }
        if (order == maxOrder) {
            return -1;
        }
        long parent = take(order + 1);
        if (parent < 0) {
            return -1;
        }
        setBit(order, parent * 2 + 1);
        return parent * 2;
    }

    private boolean testBit(int order, long index) {
        return (freeBits[order][(int) (index >>> 6)] & (1L << (index & 63))) != 0;
    }

    private void setBit(int order, long index) {
        freeBits[order][(int) (index >>> 6)] |= 1L << (index & 63);
    }

    private void clearBit(int order, long index) {
        freeBits[order][(int) (index >>> 6)] &= ~(1L << (index & 63));
    }

    @Override
    public void close() {
        try {
            region.close();
        } catch (Exception ignored) {
            // deregistration of a closed device: the memory goes anyway
        }
        if (arena != null) {
            arena.close();
        }
    }
}
