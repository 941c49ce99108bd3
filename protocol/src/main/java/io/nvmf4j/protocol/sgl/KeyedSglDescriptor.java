package io.nvmf4j.protocol.sgl;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * Keyed SGL Data Block descriptor, type 4h (NVMe Base 2.0, 4.3.2; NVMe-oF RDMA transport binding):
 * a remote buffer the target reaches by RDMA Read (host writes) or RDMA Write (host reads). Bytes 7:0 address,
 * bytes 10:8 length (24 bits: at most 16 MiB - 1 per descriptor), bytes 14:11 key (the RDMA rkey / STag),
 * byte 15 identifier 40h, or 4Fh when the host asks the target to invalidate the key with a Send with Invalidate
 * of its response. Linux: {@code struct nvme_keyed_sgl_desc}, written by {@code nvme_rdma_map_sg_fr()} as
 * {@code NVME_KEY_SGL_FMT_DATA_DESC << 4 | NVME_SGL_FMT_INVALIDATE}, parsed by {@code nvmet_rdma_map_sgl_keyed()}.
 *
 * @param address    remote virtual address (or offset into the registered region, as the transport defines)
 * @param length     bytes, 0..{@value #MAX_LENGTH}
 * @param key        the remote key, 32 raw bits
 * @param invalidate subtype Fh (invalidate key) instead of 0h (address)
 */
public record KeyedSglDescriptor(long address, int length, int key, boolean invalidate) implements SglDescriptor {

    /** Largest length a keyed descriptor can carry: 2^24 - 1. */
    public static final int MAX_LENGTH = 0xFF_FFFF;

    public KeyedSglDescriptor {
        if (length < 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("keyed SGL length " + Integer.toUnsignedString(length)
                    + " does not fit the 24-bit length field (0.." + MAX_LENGTH + ")");
        }
    }

    @Override
    public int type() {
        return TYPE_KEYED_DATA_BLOCK;
    }

    @Override
    public int subtype() {
        return invalidate ? SUBTYPE_INVALIDATE_KEY : SUBTYPE_ADDRESS;
    }

    @Override
    public void encode(MemorySegment destination) {
        write(Wire.requireDestination(destination, SIZE, "keyed SGL descriptor"), 0, address, length, key, invalidate);
    }

    /**
     * Writes a keyed descriptor at byte {@code at} of {@code d} without a record or a slice: the host's data path
     * writes SGL1 of every command with this straight into the SQE (no allocation per command). Reserved bytes are
     * left as they are (the caller cleared the entry).
     */
    public static void write(MemorySegment d, long at, long address, int length, int key, boolean invalidate) {
        if (length < 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("keyed SGL length " + Integer.toUnsignedString(length)
                    + " does not fit the 24-bit length field (0.." + MAX_LENGTH + ")");
        }
        Wire.u64(d, at + OFFSET_ADDRESS, address);
        Wire.u24(d, at + OFFSET_LENGTH, length);
        Wire.u32(d, at + OFFSET_KEY, Integer.toUnsignedLong(key));
        Wire.u8(d, at + OFFSET_IDENTIFIER, TYPE_KEYED_DATA_BLOCK << 4
                | (invalidate ? SUBTYPE_INVALIDATE_KEY : SUBTYPE_ADDRESS));
    }

    @Override
    public String toString() {
        return String.format("KeyedSGL[addr=%016xh len=%d key=%08xh%s]", address, length, key,
                invalidate ? " invalidate" : "");
    }
}
