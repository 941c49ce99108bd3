package io.nvmf4j.protocol;

import java.lang.foreign.MemorySegment;

/**
 * A view over one data structure in a {@link MemorySegment} with fluent setters: the field access the Identify data
 * structures share (NVMe Base 2.0, 5.17.2.1 Identify Controller, NVM Command Set 1.0, 4.1.5.1 Identify Namespace),
 * little-endian through {@link Wire}. Reads and writes in place, no allocation.
 *
 * @param <T> the view itself, so that a setter returns the concrete type for chaining
 */
public abstract class StructureView<T extends StructureView<T>> {

    protected final MemorySegment segment;

    protected StructureView(MemorySegment segment) {
        this.segment = segment;
    }

    /** The bytes this view reads and writes. */
    public final MemorySegment segment() {
        return segment;
    }

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    protected final int u8(long offset) {
        return Wire.u8(segment, offset);
    }

    protected final T u8(long offset, int value) {
        Wire.u8(segment, offset, value);
        return self();
    }

    protected final int u16(long offset) {
        return Wire.u16(segment, offset);
    }

    protected final T u16(long offset, int value) {
        Wire.u16(segment, offset, value);
        return self();
    }

    /** The 32 bits as an int (callers that want them unsigned use {@link Integer#toUnsignedLong}). */
    protected final int u32(long offset) {
        return (int) Wire.u32(segment, offset);
    }

    protected final T u32(long offset, int value) {
        Wire.u32(segment, offset, value);
        return self();
    }

    protected final long u64(long offset) {
        return Wire.u64(segment, offset);
    }

    protected final T u64(long offset, long value) {
        Wire.u64(segment, offset, value);
        return self();
    }
}
