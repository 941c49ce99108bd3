package io.nvmf4j.protocol.rdma;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * The private data of an RDMA_CM reject (NVMe RDMA Transport Specification, "RDMA_CM_REJECT Private Data"; Linux
 * {@code struct nvme_rdma_cm_rej}, SPDK
 * {@code struct spdk_nvmf_rdma_reject_private_data}), 4 bytes: RECFMT at 0, STS at 2. The status is kept as the
 * raw value so that an unknown one from a peer can still be logged; {@link #status()} names the known ones.
 */
public record RdmaCmReject(int recfmt, int sts) {

    public static final int SIZE = 4;
    public static final int OFFSET_RECFMT = 0;
    public static final int OFFSET_STS = 2;

    public RdmaCmReject {
        Wire.checkUnsigned("RECFMT", recfmt, 16);
        Wire.checkUnsigned("STS", sts, 16);
    }

    public static RdmaCmReject of(RdmaCmRejectStatus status) {
        return new RdmaCmReject(RdmaCmRequest.RECFMT_1_0, status.value());
    }

    public Optional<RdmaCmRejectStatus> status() {
        return RdmaCmRejectStatus.fromValue(sts);
    }

    public void encode(MemorySegment destination) {
        MemorySegment d = Wire.requireDestination(destination, SIZE, "RDMA CM reject private data");
        Wire.u16(d, OFFSET_RECFMT, recfmt);
        Wire.u16(d, OFFSET_STS, sts);
    }

    public byte[] toBytes() {
        byte[] bytes = new byte[SIZE];
        encode(MemorySegment.ofArray(bytes));
        return bytes;
    }

    public static RdmaCmReject decode(MemorySegment privateData) {
        MemorySegment s = Wire.require(privateData, SIZE, "RDMA CM reject private data");
        return new RdmaCmReject(Wire.u16(s, OFFSET_RECFMT), Wire.u16(s, OFFSET_STS));
    }

    @Override
    public String toString() {
        return "RdmaCmReject[recfmt=" + recfmt + " sts=" + sts
                + status().map(s -> " (" + s.name() + ": " + s.message() + ")").orElse(" (unknown)") + "]";
    }
}
