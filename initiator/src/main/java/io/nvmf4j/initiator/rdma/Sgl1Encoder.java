package io.nvmf4j.initiator.rdma;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.sgl.DataBlockDescriptor;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;
import java.lang.foreign.MemorySegment;

/**
 * SGL1 (the 16-byte data pointer at SQE bytes 39:24) of the three forms the host sends, written in place by
 * protocol's descriptor writers (NVMe Base 2.0, 4.3.2; Linux {@code nvme_rdma_set_sg_null()},
 * {@code nvme_rdma_map_sg_inline()}, {@code nvme_rdma_map_sg_fr()}). The entry must have been cleared first.
 */
final class Sgl1Encoder {

    private static final long DPTR = SubmissionQueueEntry.OFFSET_DPTR;

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
        KeyedSglDescriptor.write(sqe, DPTR, address, length, key, invalidate);
    }

    /** The null keyed descriptor of a command without data: all zero but the identifier 40h. */
    static void nullKeyed(MemorySegment sqe) {
        keyed(sqe, 0, 0, 0);
    }

    /** Data block, subtype offset (01h): in-capsule data at {@code offset} after the SQE. */
    static void inCapsule(MemorySegment sqe, long offset, int length) {
        DataBlockDescriptor.writeInCapsule(sqe, DPTR, offset, length);
    }
}
