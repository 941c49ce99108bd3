package io.nvmf4j.protocol.sgl;

/**
 * SGL Segment descriptor, type 2h (NVMe Base 2.0, 4.3.2): points to the next SGL segment, which is followed by
 * further segments. The length is
 * the size of that segment in bytes, a non-zero multiple of 16 (one descriptor each).
 *
 * @param address where the segment lies, or its offset into the in-capsule data when {@code offset} is set
 * @param length  segment length in bytes: a non-zero multiple of {@value SglDescriptor#SIZE}
 * @param offset  subtype 1h (offset) instead of 0h (address)
 */
public record SegmentDescriptor(long address, long length, boolean offset) implements SegmentPointer {

    public SegmentDescriptor {
        SegmentPointers.checkLength(length);
    }

    @Override
    public int type() {
        return TYPE_SEGMENT;
    }

    @Override
    public String toString() {
        return SegmentPointers.describe("SegmentSGL", address, length, offset);
    }
}
