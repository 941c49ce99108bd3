package io.nvmf4j.protocol.sgl;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * SGL Bit Bucket descriptor, type 1h (NVMe Base 2.0, 4.3.2): on a read, {@code length} bytes of data
 * to discard. The address field is reserved.
 *
 * @param length bytes to discard, 0..2^32-1
 */
public record BitBucketDescriptor(long length) implements SglDescriptor {

    public BitBucketDescriptor {
        Wire.checkUnsigned("bit bucket length", length, 32);
    }

    @Override
    public int type() {
        return TYPE_BIT_BUCKET;
    }

    @Override
    public int subtype() {
        return SUBTYPE_ADDRESS;
    }

    @Override
    public void encode(MemorySegment destination) {
        SglDescriptor.encodeUnkeyed(destination, 0, length, identifier());
    }

    @Override
    public String toString() {
        return "BitBucketSGL[len=" + length + "]";
    }
}
