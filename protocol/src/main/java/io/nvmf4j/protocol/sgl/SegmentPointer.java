package io.nvmf4j.protocol.sgl;

import java.lang.foreign.MemorySegment;

/**
 * An SGL descriptor that points to a further SGL segment (NVMe Base 2.0, 4.3.2): Segment (2h) or Last Segment
 * (3h). The segment's length is a non-zero multiple of 16 bytes (one descriptor each); it is addressed by address
 * (subtype 0h) or by offset into the in-capsule data (subtype 1h).
 */
public sealed interface SegmentPointer extends SglDescriptor permits SegmentDescriptor, LastSegmentDescriptor {

    /** Where the segment lies, or its offset into the in-capsule data when {@link #offset()} is set. */
    long address();

    /** Segment length in bytes. */
    long length();

    /** Subtype 1h (offset) instead of 0h (address). */
    boolean offset();

    /** The number of descriptors in the segment this descriptor points to. */
    default int descriptorCount() {
        return (int) (length() / SIZE);
    }

    @Override
    default int subtype() {
        return offset() ? SUBTYPE_OFFSET : SUBTYPE_ADDRESS;
    }

    @Override
    default void encode(MemorySegment destination) {
        SglDescriptor.encodeUnkeyed(destination, address(), length(), identifier());
    }
}
