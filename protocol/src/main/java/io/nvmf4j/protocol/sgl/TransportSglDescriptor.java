package io.nvmf4j.protocol.sgl;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * Transport SGL Data Block descriptor, type 5h with subtype Ah "transport specific" (NVMe Base 2.0,
 * 4.3.2): the data moves by a transport mechanism rather than by address. NVMe/TCP uses it for data sent in
 * H2C/C2H PDUs (Linux {@code NVME_TRANSPORT_SGL_DATA_DESC << 4 | NVME_SGL_FMT_TRANSPORT_A}, identifier 5Ah);
 * the RDMA binding does not, but a target must still recognise it to refuse it with a status.
 *
 * @param address transport specific (zero for NVMe/TCP)
 * @param length  bytes, 0..2^32-1
 */
public record TransportSglDescriptor(long address, long length) implements SglDescriptor {

    public TransportSglDescriptor {
        Wire.checkUnsigned("transport data block length", length, 32);
    }

    @Override
    public int type() {
        return TYPE_TRANSPORT_DATA_BLOCK;
    }

    @Override
    public int subtype() {
        return SUBTYPE_TRANSPORT_SPECIFIC;
    }

    @Override
    public void encode(MemorySegment destination) {
        SglDescriptor.encodeUnkeyed(destination, address, length, identifier());
    }

    @Override
    public String toString() {
        return String.format("TransportSGL[addr=%016xh len=%d]", address, length);
    }
}
