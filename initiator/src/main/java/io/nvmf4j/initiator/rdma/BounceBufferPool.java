package io.nvmf4j.initiator.rdma;

import io.nvmf4j.verbs.MemoryRegion;
import java.lang.foreign.MemorySegment;

/**
 * The queue's bounce buffers: one registered region cut into equal buffers, handed out LIFO (a warm buffer is
 * reused first). Commands whose data is not in a caller-registered region are staged here. Guarded by the queue's
 * lock; never exposed to the peer except through a per-command window.
 */
final class BounceBufferPool {

    private final MemoryRegion region;
    private final int bufferSize;
    private final int[] free;
    private int freeCount;

    BounceBufferPool(MemoryRegion region, int bufferSize, int buffers) {
        this.region = region;
        this.bufferSize = bufferSize;
        this.free = new int[buffers];
        for (int i = 0; i < buffers; i++) {
            free[i] = buffers - 1 - i;
        }
        this.freeCount = buffers;
    }

    int bufferSize() {
        return bufferSize;
    }

    MemoryRegion region() {
        return region;
    }

    boolean isEmpty() {
        return freeCount == 0;
    }

    int acquire() {
        return free[--freeCount];
    }

    void release(int buffer) {
        free[freeCount++] = buffer;
    }

    long offset(int buffer) {
        return (long) buffer * bufferSize;
    }

    void copyIn(int buffer, MemorySegment source, int length) {
        MemorySegment.copy(source, 0, region.segment(), offset(buffer), length);
    }

    void copyOut(int buffer, MemorySegment destination, int length) {
        MemorySegment.copy(region.segment(), offset(buffer), destination, 0, length);
    }
}
