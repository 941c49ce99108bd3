package io.nvmf4j.initiator;

import io.nvmf4j.verbs.MemoryRegion;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Native memory the controller's transport moves data in and out of without a copy. Over NVMe/RDMA it is
 * registered with the controller's protection domain: I/O on it is zero-copy (the keyed SGL of each
 * command names this memory, the target moves the data straight in or out). The target reaches only the bytes of
 * a command in flight, through a memory window bound for that command; the rest stays out of its reach.
 * Made by {@link NvmeController#allocateBuffer} or {@link NvmeController#registerBuffer}. Close it when done
 * (deregisters it; memory from {@code allocateBuffer} is freed with the controller, or over NVMe/TCP by the garbage
 * collector once nothing refers to it). Over NVMe/TCP it is plain native memory, nothing is registered, and the
 * socket reads into it and writes from it: a direct buffer of its own, so that H2CData leaves from it and
 * C2HData lands in it with no copy in between.
 */
public final class IoBuffer implements AutoCloseable {

    /** Null over NVMe/TCP. */
    private final MemoryRegion region;
    private final MemorySegment segment;
    /** The same memory as a direct buffer of its own (allocated over NVMe/TCP), else null. */
    private final ByteBuffer direct;

    IoBuffer(MemoryRegion region) {
        this.region = region;
        this.segment = region.segment();
        this.direct = null;
    }

    /** Unregistered memory (NVMe/TCP); {@code direct}, when not null, is the same memory as a direct buffer. */
    IoBuffer(MemorySegment segment, ByteBuffer direct) {
        this.region = null;
        this.segment = segment;
        this.direct = direct;
    }

    /**
     * The memory as a direct buffer made by {@code ByteBuffer.allocateDirect} (its position 0 is the segment's
     * offset 0), or null. A socket's gathering write takes such a buffer, or a duplicate of it, without allocating;
     * a buffer viewing a segment of an arena makes the write acquire the arena's session, which allocates each time.
     */
    ByteBuffer direct() {
        return direct;
    }

    /** The memory. */
    public MemorySegment segment() {
        return segment;
    }

    public long size() {
        return segment.byteSize();
    }

    MemoryRegion region() {
        return region;
    }

    @Override
    public void close() {
        if (region != null) {
            region.close();
        }
    }
}
