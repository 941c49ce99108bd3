package io.nvmf4j.protocol.sgl;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * SGL Last Segment descriptor, type 3h (NVMe Base 2.0, 4.3.2): points to the last SGL segment, which holds only
 * data (or bit bucket / keyed) descriptors. The length is
 * the size of that segment in bytes, a non-zero multiple of 16 (one descriptor each).
 *
 * @param address where the segment lies, or its offset into the in-capsule data when {@code offset} is set
 * @param length  segment length in bytes: a non-zero multiple of {@value SglDescriptor#SIZE}
 * @param offset  subtype 1h (offset) instead of 0h (address)
 */
public record LastSegmentDescriptor(long address, long length, boolean offset) implements SglDescriptor {

    public LastSegmentDescriptor {
        Wire.checkUnsigned("segment length", length, 32);
        if (length == 0 || length % SIZE != 0) {
            throw new IllegalArgumentException("segment length " + length + " is not a non-zero multiple of " + SIZE);
        }
    }

    /** The number of descriptors in the segment this descriptor points to. */
    public int descriptorCount() {
        return (int) (length / SIZE);
    }

    @Override
    public int type() {
        return TYPE_LAST_SEGMENT;
    }

    @Override
    public int subtype() {
        return offset ? SUBTYPE_OFFSET : SUBTYPE_ADDRESS;
    }

    @Override
    public void encode(MemorySegment destination) {
        SglDescriptor.encodeUnkeyed(destination, address, length, identifier());
    }

    @Override
    public String toString() {
        return String.format("LastSegmentSGL[%s=%s len=%d (%d descriptors)]", offset ? "offset" : "addr",
                offset ? Long.toString(address) : String.format("%016xh", address), length, descriptorCount());
    }
}
