package io.nvmf4j.protocol.sgl;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * SGL Data Block descriptor, type 0h (NVMe Base 2.0, 4.3.2). With subtype 1h "offset" the address
 * field is an offset into the data that follows the SQE in the same command capsule: this is how NVMe-oF carries
 * in-capsule data (NVMe-oF 1.1, "Capsules and Data Transfer"; Linux {@code nvme_rdma_map_sg_inline()} writes
 * {@code NVME_SGL_FMT_DATA_DESC << 4 | NVME_SGL_FMT_OFFSET}, identifier 01h, and nvmet checks the offset against
 * the capsule in {@code nvmet_rdma_map_sgl_inline()}).
 *
 * @param address a memory address, or the offset into the in-capsule data when {@code offset} is set
 * @param length  length in bytes, 0..2^32-1
 * @param offset  subtype 1h (offset) instead of 0h (address)
 */
public record DataBlockDescriptor(long address, long length, boolean offset) implements SglDescriptor {

    public DataBlockDescriptor {
        Wire.checkUnsigned("data block length", length, 32);
    }

    /** In-capsule data: {@code length} bytes starting {@code offset} bytes into the capsule's data area. */
    public static DataBlockDescriptor inCapsule(long offset, long length) {
        return new DataBlockDescriptor(offset, length, true);
    }

    /** Data at a memory address (subtype 0h). */
    public static DataBlockDescriptor atAddress(long address, long length) {
        return new DataBlockDescriptor(address, length, false);
    }

    @Override
    public int type() {
        return TYPE_DATA_BLOCK;
    }

    @Override
    public int subtype() {
        return offset ? SUBTYPE_OFFSET : SUBTYPE_ADDRESS;
    }

    @Override
    public void encode(MemorySegment destination) {
        SglDescriptor.encodeUnkeyed(destination, address, length, identifier());
    }

    /**
     * Writes an in-capsule data block descriptor (subtype 1h, offset) at byte {@code at} of {@code d} without a
     * record or a slice: the host's data path writes SGL1 of in-capsule writes with this. Reserved bytes are left as
     * they are (the caller cleared the entry).
     */
    public static void writeInCapsule(MemorySegment d, long at, long offset, int length) {
        Wire.u64(d, at + OFFSET_ADDRESS, offset);
        Wire.u32(d, at + OFFSET_LENGTH, Integer.toUnsignedLong(length));
        Wire.u8(d, at + OFFSET_IDENTIFIER, TYPE_DATA_BLOCK << 4 | SUBTYPE_OFFSET);
    }

    @Override
    public String toString() {
        return offset
                ? String.format("DataBlockSGL[in-capsule offset=%d len=%d]", address, length)
                : String.format("DataBlockSGL[addr=%016xh len=%d]", address, length);
    }
}
