package io.nvmf4j.initiator.rdma;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.sgl.SglDescriptor;
import java.lang.foreign.MemorySegment;

/**
 * Writes SGL1 (the 16-byte data pointer at SQE bytes 39:24) straight into a submission queue entry's segment: the
 * same bytes as {@code KeyedSglDescriptor.encode} / {@code DataBlockDescriptor.inCapsule(..).encode}, without a
 * descriptor record or a slice per command (the data path must not allocate; NVMe Base 2.0, 4.3.2; Linux
 * {@code nvme_rdma_set_sg_null()}, {@code nvme_rdma_map_sg_inline()}, {@code nvme_rdma_map_sg_single()}). The
 * entry must have been cleared first: reserved bytes are left as they are.
 */
final class Sgl1Encoder {

    private static final long DPTR = SubmissionQueueEntry.OFFSET_DPTR;
    private static final int KEYED_ADDRESS = SglDescriptor.TYPE_KEYED_DATA_BLOCK << 4 | SglDescriptor.SUBTYPE_ADDRESS;
    private static final int KEYED_INVALIDATE = SglDescriptor.TYPE_KEYED_DATA_BLOCK << 4
            | SglDescriptor.SUBTYPE_INVALIDATE_KEY;
    private static final int DATA_BLOCK_OFFSET = SglDescriptor.TYPE_DATA_BLOCK << 4 | SglDescriptor.SUBTYPE_OFFSET;

    private Sgl1Encoder() {
    }

    /** Keyed SGL data block, subtype address (40h): remote address, 24-bit length, key. */
    static void keyed(MemorySegment sqe, long address, int length, int key) {
        keyed(sqe, address, length, key, false);
    }

    /**
     * Keyed SGL data block with subtype "invalidate key" (4Fh) when {@code invalidate}: the controller is to answer
     * with Send with Invalidate naming {@code key} (NVMe-oF 1.1, 7.3.2; Linux {@code nvme_rdma_map_sg_fr()} sets
     * {@code NVME_SGL_FMT_INVALIDATE}), else subtype address (40h).
     */
    static void keyed(MemorySegment sqe, long address, int length, int key, boolean invalidate) {
        if (length < 0 || length > 0xFF_FFFF) {
            throw new IllegalArgumentException("keyed SGL length " + length + " does not fit 24 bits");
        }
        Wire.u64(sqe, DPTR + SglDescriptor.OFFSET_ADDRESS, address);
        Wire.u24(sqe, DPTR + SglDescriptor.OFFSET_LENGTH, length);
        Wire.u32(sqe, DPTR + SglDescriptor.OFFSET_KEY, Integer.toUnsignedLong(key));
        Wire.u8(sqe, DPTR + SglDescriptor.OFFSET_IDENTIFIER, invalidate ? KEYED_INVALIDATE : KEYED_ADDRESS);
    }

    /** The null keyed descriptor of a command without data: all zero but the identifier 40h. */
    static void nullKeyed(MemorySegment sqe) {
        keyed(sqe, 0, 0, 0);
    }

    /** Data block, subtype offset (01h): in-capsule data at {@code offset} after the SQE. */
    static void inCapsule(MemorySegment sqe, long offset, int length) {
        Wire.u64(sqe, DPTR + SglDescriptor.OFFSET_ADDRESS, offset);
        Wire.u32(sqe, DPTR + SglDescriptor.OFFSET_LENGTH, Integer.toUnsignedLong(length));
        Wire.u8(sqe, DPTR + SglDescriptor.OFFSET_IDENTIFIER, DATA_BLOCK_OFFSET);
    }
}
