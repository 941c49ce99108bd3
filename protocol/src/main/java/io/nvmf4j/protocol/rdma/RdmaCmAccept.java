package io.nvmf4j.protocol.rdma;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The private data of an RDMA_CM accept (NVMe RDMA Transport Specification, "RDMA_CM_ACCEPT Private Data"; Linux
 * {@code struct nvme_rdma_cm_rep},
 * SPDK {@code struct spdk_nvmf_rdma_accept_private_data}), 32 bytes: RECFMT at 0, CRQSIZE (controller receive
 * queue size: how many capsules the controller can take) at 2, bytes 4..31 reserved. Linux nvmet answers with
 * CRQSIZE = its receive queue size ({@code nvmet_rdma_cm_accept()}).
 */
public record RdmaCmAccept(int recfmt, int crqsize) {

    public static final int SIZE = 32;
    public static final int OFFSET_RECFMT = 0;
    public static final int OFFSET_CRQSIZE = 2;

    public RdmaCmAccept {
        Wire.checkUnsigned("RECFMT", recfmt, 16);
        Wire.checkUnsigned("CRQSIZE", crqsize, 16);
    }

    public static RdmaCmAccept of(int crqsize) {
        return new RdmaCmAccept(RdmaCmRequest.RECFMT_1_0, crqsize);
    }

    public void encode(MemorySegment destination) {
        MemorySegment d = Wire.requireDestination(destination, SIZE, "RDMA CM accept private data");
        d.fill((byte) 0);
        Wire.u16(d, OFFSET_RECFMT, recfmt);
        Wire.u16(d, OFFSET_CRQSIZE, crqsize);
    }

    public byte[] toBytes() {
        byte[] bytes = new byte[SIZE];
        encode(MemorySegment.ofArray(bytes));
        return bytes;
    }

    /**
     * Reads the accept. Linux hosts check only that at least the RECFMT and CRQSIZE are there; we require the full
     * 32 bytes the binding defines, and fail with a message when they are missing.
     */
    public static RdmaCmAccept decode(MemorySegment privateData) {
        MemorySegment s = Wire.require(privateData, SIZE, "RDMA CM accept private data");
        return new RdmaCmAccept(Wire.u16(s, OFFSET_RECFMT), Wire.u16(s, OFFSET_CRQSIZE));
    }

    @Override
    public String toString() {
        return "RdmaCmAccept[recfmt=" + recfmt + " crqsize=" + crqsize + "]";
    }
}
