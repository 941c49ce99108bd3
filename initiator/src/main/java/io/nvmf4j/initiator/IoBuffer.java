package io.nvmf4j.initiator;

import io.nvmf4j.verbs.MemoryRegion;
import java.lang.foreign.MemorySegment;

/**
 * Native memory registered with the controller's protection domain: I/O on it is zero-copy (the keyed SGL of each
 * command names this memory, the target moves the data straight in or out). The target reaches only the bytes of
 * a command in flight, through a memory window bound for that command; the rest stays out of its reach.
 * Made by {@link NvmeController#allocateBuffer} or {@link NvmeController#registerBuffer}. Close it when done
 * (deregisters it; memory from {@code allocateBuffer} is freed with the controller).
 */
public final class IoBuffer implements AutoCloseable {

    private final MemoryRegion region;

    IoBuffer(MemoryRegion region) {
        this.region = region;
    }

    /** The memory. */
    public MemorySegment segment() {
        return region.segment();
    }

    public long size() {
        return region.length();
    }

    MemoryRegion region() {
        return region;
    }

    @Override
    public void close() {
        region.close();
    }
}
