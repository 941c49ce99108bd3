package io.nvmf4j.protocol.rdma;

import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The private data of an RDMA_CM connect request (NVMe RDMA Transport Specification, "RDMA_CM_REQUEST Private
 * Data"; Linux
 * {@code struct nvme_rdma_cm_req}, SPDK {@code struct spdk_nvmf_rdma_request_private_data}), 32 bytes:
 *
 * <pre>
 *  0..1   RECFMT   record format, 0
 *  2..3   QID      the NVMe queue this RDMA queue pair carries (0 = admin)
 *  4..5   HRQSIZE  host receive queue size: number of responses the host can take (1's based)
 *  6..7   HSQSIZE  host send queue size, 0's based, like the Connect SQSIZE
 *  8..9   CNTLID   controller id for I/O queues (NVMe RDMA binding 1.1); Linux sends 0 here
 *  10..31 reserved
 * </pre>
 *
 * A Linux host connecting the admin queue sends {@code 0000 0000 2000 1f00} and 24 zero bytes
 * ({@code nvme_rdma_route_resolved()}: hrqsize NVME_AQ_DEPTH = 32, hsqsize NVME_AQ_DEPTH - 1 = 31). Linux nvmet
 * sizes its receive queue from HSQSIZE + 1 and its send queue from HRQSIZE
 * ({@code nvmet_rdma_parse_cm_connect_req()}).
 */
public record RdmaCmRequest(int recfmt, QueueId qid, int hrqsize, int hsqsize, ControllerId cntlid) {

    public static final int SIZE = 32;
    public static final int OFFSET_RECFMT = 0;
    public static final int OFFSET_QID = 2;
    public static final int OFFSET_HRQSIZE = 4;
    public static final int OFFSET_HSQSIZE = 6;
    public static final int OFFSET_CNTLID = 8;
    /** Linux {@code NVME_RDMA_CM_FMT_1_0}. */
    public static final int RECFMT_1_0 = 0;

    public RdmaCmRequest {
        java.util.Objects.requireNonNull(qid, "qid");
        java.util.Objects.requireNonNull(cntlid, "cntlid");
        Wire.checkUnsigned("RECFMT", recfmt, 16);
        Wire.checkUnsigned("HRQSIZE", hrqsize, 16);
        Wire.checkUnsigned("HSQSIZE", hsqsize, 16);
    }

    /** A request as Linux sends it: RECFMT 0, CNTLID 0. */
    public static RdmaCmRequest of(QueueId qid, int hrqsize, int hsqsize) {
        return new RdmaCmRequest(RECFMT_1_0, qid, hrqsize, hsqsize, ControllerId.of(0));
    }

    /** Entries the host's submission queue has (HSQSIZE + 1). */
    public int hostSendQueueEntries() {
        return hsqsize + 1;
    }

    public void encode(MemorySegment destination) {
        MemorySegment d = Wire.requireDestination(destination, SIZE, "RDMA CM request private data");
        d.fill((byte) 0);
        Wire.u16(d, OFFSET_RECFMT, recfmt);
        Wire.u16(d, OFFSET_QID, qid.value());
        Wire.u16(d, OFFSET_HRQSIZE, hrqsize);
        Wire.u16(d, OFFSET_HSQSIZE, hsqsize);
        Wire.u16(d, OFFSET_CNTLID, cntlid.value());
    }

    /** The 32 encoded bytes, for a connection manager that takes private data as an array. */
    public byte[] toBytes() {
        byte[] bytes = new byte[SIZE];
        encode(MemorySegment.ofArray(bytes));
        return bytes;
    }

    /**
     * Reads the request from private data. Fewer than 32 bytes fail with a message; a target answers that with
     * {@link RdmaCmRejectStatus#INVALID_LEN}. Value checks (RECFMT, QID, sizes) are the target's, each with its
     * own reject status. Bytes beyond 32 (the CM may deliver a padded buffer) are ignored.
     */
    public static RdmaCmRequest decode(MemorySegment privateData) {
        MemorySegment s = Wire.require(privateData, SIZE, "RDMA CM request private data");
        return new RdmaCmRequest(Wire.u16(s, OFFSET_RECFMT), QueueId.of(Wire.u16(s, OFFSET_QID)),
                Wire.u16(s, OFFSET_HRQSIZE), Wire.u16(s, OFFSET_HSQSIZE), ControllerId.of(Wire.u16(s, OFFSET_CNTLID)));
    }

    @Override
    public String toString() {
        return String.format("RdmaCmRequest[recfmt=%d %s hrqsize=%d hsqsize=%d cntlid=%d]",
                recfmt, qid, hrqsize, hsqsize, cntlid.value());
    }
}
