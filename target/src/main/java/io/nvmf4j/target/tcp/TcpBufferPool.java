package io.nvmf4j.target.tcp;


/**
 * A poll group's data buffers for R2T'd write data and read data (nvmet-tcp allocates a scatterlist per command in
 * {@code nvmet_tcp_map_data()}; here buffers are reused, so the data path allocates nothing): power-of-two size
 * classes from 4 KiB up to the largest transfer, each block allocated on first need and kept on its class's free
 * stack once given back, up to a byte budget; when a size is wanted and the budget is spent, free blocks of other
 * sizes are released to make room (a pool full of free small blocks must not starve a large transfer).
 * Page-aligned, so file and block-device namespaces can do direct I/O into them. Poll-group thread only.
 */
final class TcpBufferPool implements AutoCloseable {

    static final int SMALLEST = 4096;
    static final int ALIGNMENT = 4096;

    private final long budget;
    private final int classes;
    private final DataBlock[][] free;
    private final int[] freeCount;
    private long allocatedBytes;
    private boolean closed;

    TcpBufferPool(long budget, long largest) {
        this.budget = budget;
        int c = 1;
        while ((long) SMALLEST << (c - 1) < largest) {
            c++;
        }
        this.classes = c;
        this.free = new DataBlock[c][];
        this.freeCount = new int[c];
        for (int i = 0; i < c; i++) {
            // at most budget / size blocks of a class can exist
            free[i] = new DataBlock[(int) Math.max(1, Math.min(65536, budget / ((long) SMALLEST << i)))];
        }
    }

    /** The largest buffer this pool gives out. */
    long largest() {
        return (long) SMALLEST << (classes - 1);
    }

    /** A block of at least {@code length} bytes, or null while the budget is spent (the caller waits). */
    DataBlock take(long length) {
        int c = sizeClass(length);
        if (c < 0) {
            return null;
        }
        if (freeCount[c] > 0) {
            DataBlock b = free[c][--freeCount[c]];
            free[c][freeCount[c]] = null;
            return b;
        }
        long size = (long) SMALLEST << c;
        while (allocatedBytes + size > budget && reclaimOne(c)) {
            // free blocks of other sizes give their memory back
        }
        if (allocatedBytes + size > budget) {
            return null;
        }
        allocatedBytes += size;
        return new DataBlock(DataBlock.direct(size, ALIGNMENT), c);
    }

    void give(DataBlock b) {
        int c = b.sizeClass;
        if (closed || freeCount[c] == free[c].length) {
            allocatedBytes -= b.memory.byteSize(); // dropped: its memory goes with the last reference
            return;
        }
        free[c][freeCount[c]++] = b;
    }

    /** Drops one free block of another class than {@code except} from the count; false when there is none. */
    private boolean reclaimOne(int except) {
        for (int c = 0; c < classes; c++) {
            if (c != except && freeCount[c] > 0) {
                DataBlock b = free[c][--freeCount[c]];
                free[c][freeCount[c]] = null;
                allocatedBytes -= b.memory.byteSize();
                return true;
            }
        }
        return false;
    }

    /** The bytes of the block {@link #take} gives for {@code length} (its size class): what a queue's share counts. */
    static long blockBytes(long length) {
        long size = SMALLEST;
        while (size < length) {
            size <<= 1;
        }
        return size;
    }

    private int sizeClass(long length) {
        for (int c = 0; c < classes; c++) {
            if (length <= (long) SMALLEST << c) {
                return c;
            }
        }
        return -1;
    }

    /** Bytes of blocks in use or free in this pool (tests). */
    long allocatedBytes() {
        return allocatedBytes;
    }

    /** Drops the free blocks; blocks still held by requests are dropped when given back. */
    @Override
    public void close() {
        closed = true;
        for (int c = 0; c < classes; c++) {
            while (freeCount[c] > 0) {
                DataBlock b = free[c][--freeCount[c]];
                free[c][freeCount[c]] = null;
                allocatedBytes -= b.memory.byteSize();
            }
        }
    }
}
