package io.nvmf4j.initiator;

import io.nvmf4j.verbs.MemoryRegion;
import java.lang.foreign.MemorySegment;

/**
 * Native memory the controller's transport moves data in and out of without a copy. Over NVMe/RDMA it is
 * registered with the controller's protection domain: I/O on it is zero-copy (the keyed SGL of each
 * command names this memory, the target moves the data straight in or out). The target reaches only the bytes of
 * a command in flight, through a memory window bound for that command; the rest stays out of its reach.
 * Made by {@link NvmeController#allocateBuffer} or {@link NvmeController#registerBuffer}. Close it when done
 * (deregisters it; memory from {@code allocateBuffer} is freed with the controller). Over NVMe/TCP it is plain
 * native memory: the socket reads into it and writes from it, and nothing is registered.
 */
public final class IoBuffer implements AutoCloseable {

    /** Null over NVMe/TCP. */
    private final MemoryRegion region;
    private final MemorySegment segment;

    IoBuffer(MemoryRegion region) {
        this.region = region;
        this.segment = region.segment();
    }

    /** Unregistered memory (NVMe/TCP). */
    IoBuffer(MemorySegment segment) {
        this.region = null;
        this.segment = segment;
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
