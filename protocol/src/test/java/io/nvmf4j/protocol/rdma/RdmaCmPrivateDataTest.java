package io.nvmf4j.protocol.rdma;

import static io.nvmf4j.protocol.Hex.zeros;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.Hex;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.QueueId;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Vectors from Linux include/linux/nvme-rdma.h: struct nvme_rdma_cm_req {le16 recfmt; le16 qid; le16 hrqsize;
 * le16 hsqsize; le16 cntlid; u8 rsvd[22];}, struct nvme_rdma_cm_rep {le16 recfmt; le16 crqsize; u8 rsvd[28];},
 * struct nvme_rdma_cm_rej {le16 recfmt; le16 sts;}.
 */
class RdmaCmPrivateDataTest {

    /** What the Linux host sends for the admin queue, as captured in the interop lab (interop/). */
    static final String LINUX_ADMIN_REQUEST = "0000 0000 2000 1f00" + zeros(24);

    @Test
    void sizesAreThoseOfTheLinuxStructs() {
        assertEquals(32, RdmaCmRequest.SIZE);
        assertEquals(32, RdmaCmAccept.SIZE);
        assertEquals(4, RdmaCmReject.SIZE);
        assertEquals(32, RdmaCmRequest.of(QueueId.ADMIN, 32, 31).toBytes().length);
        assertEquals(32, RdmaCmAccept.of(32).toBytes().length);
        assertEquals(4, RdmaCmReject.of(RdmaCmRejectStatus.NO_RSC).toBytes().length);
    }

    @Test
    void adminQueueRequestIsTheBytesTheLinuxHostSends() {
        assertEquals(Hex.norm(LINUX_ADMIN_REQUEST), Hex.of(RdmaCmRequest.of(QueueId.ADMIN, 32, 31).toBytes()));
        RdmaCmRequest r = RdmaCmRequest.decode(Hex.segment(LINUX_ADMIN_REQUEST));
        assertEquals(0, r.recfmt());
        assertEquals(QueueId.ADMIN, r.qid());
        assertEquals(32, r.hrqsize());
        assertEquals(31, r.hsqsize());
        assertEquals(32, r.hostSendQueueEntries());
        assertEquals(ControllerId.of(0), r.cntlid());
        assertEquals("RdmaCmRequest[recfmt=0 qid 0 (admin) hrqsize=32 hsqsize=31 cntlid=0]", r.toString());
    }

    @Test
    void ioQueueRequestCarriesQidSizesAndCntlid() {
        String expected = "0000 0300 8000 7f00 0100" + zeros(22);
        RdmaCmRequest r = new RdmaCmRequest(0, QueueId.of(3), 128, 127, ControllerId.of(1));
        assertEquals(Hex.norm(expected), Hex.of(r.toBytes()));
        assertEquals(r, RdmaCmRequest.decode(Hex.segment(expected)));
    }

    @Test
    void requestInALongerCmBufferDecodesFromItsFirst32Bytes() {
        // a CM may hand over a longer, padded buffer (rdma_cm over InfiniBand delivers 56 bytes)
        assertEquals(RdmaCmRequest.of(QueueId.ADMIN, 32, 31),
                RdmaCmRequest.decode(Hex.segment(LINUX_ADMIN_REQUEST + "ab".repeat(24))));
    }

    @Test
    void truncatedPrivateDataIsRefusedWithItsLength() {
        assertEquals("RDMA CM request private data needs 32 bytes, got 31 (truncated)",
                assertThrows(MalformedStructureException.class,
                        () -> RdmaCmRequest.decode(MemorySegment.ofArray(new byte[31]))).getMessage());
        assertEquals("RDMA CM request private data needs 32 bytes, got 0 (truncated)",
                assertThrows(MalformedStructureException.class,
                        () -> RdmaCmRequest.decode(MemorySegment.ofArray(new byte[0]))).getMessage());
        assertEquals("RDMA CM accept private data needs 32 bytes, got 4 (truncated)",
                assertThrows(MalformedStructureException.class,
                        () -> RdmaCmAccept.decode(Hex.segment("0000 2000"))).getMessage());
        assertEquals("RDMA CM reject private data needs 4 bytes, got 2 (truncated)",
                assertThrows(MalformedStructureException.class,
                        () -> RdmaCmReject.decode(Hex.segment("0000"))).getMessage());
    }

    @Test
    void acceptCarriesTheControllerReceiveQueueSize() {
        String expected = "0000 2000" + zeros(28);
        assertEquals(Hex.norm(expected), Hex.of(RdmaCmAccept.of(32).toBytes()));
        assertEquals(new RdmaCmAccept(0, 32), RdmaCmAccept.decode(Hex.segment(expected)));
    }

    @Test
    void rejectCarriesTheNvmeRdmaCmStatus() {
        assertEquals(Hex.norm("0000 0400"), Hex.of(RdmaCmReject.of(RdmaCmRejectStatus.INVALID_HSQSIZE).toBytes()));
        RdmaCmReject r = RdmaCmReject.decode(Hex.segment("0000 0200"));
        assertEquals(RdmaCmRejectStatus.INVALID_RECFMT, r.status().orElseThrow());
        assertEquals("RdmaCmReject[recfmt=0 sts=2 (INVALID_RECFMT: invalid record format)]", r.toString());

        RdmaCmReject unknown = RdmaCmReject.decode(Hex.segment("0000 0900"));
        assertFalse(unknown.status().isPresent());
        assertEquals("RdmaCmReject[recfmt=0 sts=9 (unknown)]", unknown.toString());
    }

    @Test
    void rejectStatusesAreTheLinuxEnumValues() {
        assertEquals(1, RdmaCmRejectStatus.INVALID_LEN.value());
        assertEquals(2, RdmaCmRejectStatus.INVALID_RECFMT.value());
        assertEquals(3, RdmaCmRejectStatus.INVALID_QID.value());
        assertEquals(4, RdmaCmRejectStatus.INVALID_HSQSIZE.value());
        assertEquals(5, RdmaCmRejectStatus.INVALID_HRQSIZE.value());
        assertEquals(6, RdmaCmRejectStatus.NO_RSC.value());
        assertEquals(7, RdmaCmRejectStatus.INVALID_IRD.value());
        assertEquals(8, RdmaCmRejectStatus.INVALID_ORD.value());
        assertEquals("invalid host RQ size", RdmaCmRejectStatus.INVALID_HRQSIZE.message());
    }
}
