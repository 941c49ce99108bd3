package io.nvmf4j.protocol.sgl;

import io.nvmf4j.protocol.Wire;

/**
 * What the Segment (2h) and Last Segment (3h) descriptors share (NVMe Base 2.0, 4.3.2): both point to a further SGL
 * segment whose length is a non-zero multiple of 16 bytes (one descriptor each), by address or by offset into the
 * in-capsule data.
 */
final class SegmentPointers {
    private SegmentPointers() {
    }

    /** Checks a segment length: 32 bits, non-zero, a whole number of descriptors. */
    static void checkLength(long length) {
        Wire.checkUnsigned("segment length", length, 32);
        if (length == 0 || length % SglDescriptor.SIZE != 0) {
            throw new IllegalArgumentException("segment length " + length + " is not a non-zero multiple of "
                    + SglDescriptor.SIZE);
        }
    }

    /** {@code Name[addr=...h len=N (M descriptors)]}, as both records print themselves. */
    static String describe(String name, long address, long length, boolean offset) {
        return String.format("%s[%s=%s len=%d (%d descriptors)]", name, offset ? "offset" : "addr",
                offset ? Long.toString(address) : String.format("%016xh", address), length,
                length / SglDescriptor.SIZE);
    }
}
