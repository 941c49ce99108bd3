package io.nvmf4j.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** Byte layouts of Linux struct nvme_common_command / struct nvme_completion (SPDK spdk_nvme_cmd / _cpl). */
class QueueEntryTest {

    @Test
    void entriesHaveTheirSpecSizes() {
        assertEquals(64, SubmissionQueueEntry.SIZE);
        assertEquals(64, SubmissionQueueEntry.allocate().segment().byteSize());
        assertEquals(16, CompletionQueueEntry.SIZE);
        assertEquals(16, CompletionQueueEntry.allocate().segment().byteSize());
        assertEquals(24, SubmissionQueueEntry.OFFSET_DPTR);
        assertEquals(40, SubmissionQueueEntry.OFFSET_CDW10);
    }

    @Test
    void readCommandFieldsLandAtTheirLinuxOffsets() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate()
                .opcode(0x02)
                .psdt(SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS)
                .cid(0x1234)
                .nsid(1)
                .setLong(SubmissionQueueEntry.OFFSET_CDW10, 0x0000_0001_0000_0800L) // SLBA
                .cdw(12, 7);                                                       // NLB 0's based
        String expected = "02 40 3412 01000000" + Hex.zeros(8) + Hex.zeros(8) + Hex.zeros(16)
                + "0008000001000000" + "07000000" + Hex.zeros(12);
        assertEquals(Hex.norm(expected), Hex.of(sqe.segment()));
        assertEquals(1, sqe.psdt());
        assertEquals(0x0800, sqe.cdw10());
        assertEquals(1, sqe.cdw11());
        assertTrue(sqe.toString().startsWith("SQE[opc=02h cid=4660 nsid=1 psdt=1"));
    }

    @Test
    void completionFieldsLandAtTheirLinuxOffsets() {
        CompletionQueueEntry cqe = CompletionQueueEntry.allocate()
                .result(0x1122_3344_5566_7788L).sqHead(5).sqId(1).cid(0xBEEF);
        cqe.statusWord(StatusCode.SUCCESS.status().toStatusWord(true));
        assertEquals(Hex.norm("8877665544332211 0500 0100 efbe 0100"), Hex.of(cqe.segment()));
        assertTrue(cqe.phase());
        assertEquals(0, cqe.statusField());
        assertEquals(0x5566_7788, cqe.dw0());
    }

    @Test
    void decodingFromWireBytesReadsEachField() {
        CompletionQueueEntry cqe = CompletionQueueEntry.wrap(Hex.segment("01000000 00000000 1f00 0200 0700 0583"));
        assertEquals(1, cqe.dw0());
        assertEquals(31, cqe.sqHead());
        assertEquals(2, cqe.sqId());
        assertEquals(7, cqe.cid());
        assertTrue(cqe.phase());
        assertEquals(StatusCode.CONNECT_INVALID_PARAM.withDnr(), Status.fromField(cqe.statusField()));
        assertEquals("CQE[cid=7 sqid=2 sqhd=31 p=1 status=4182h READ_ONLY|DNR (sct 1h sc 82h): "
                + "Attempted Write to Read Only Range result=0000000000000001h]", cqe.toString());
    }

    @Test
    void statusAndPhaseAreSetIndependently() {
        CompletionQueueEntry cqe = CompletionQueueEntry.allocate().phase(true).status(StatusCode.INVALID_FIELD.withDnr());
        // field 4002h -> word 8005h with phase, bytes 05 80
        assertEquals(Hex.norm(Hex.zeros(14) + "0580"), Hex.of(cqe.segment()));
        cqe.phase(false);
        assertEquals(StatusCode.INVALID_FIELD.withDnr(), cqe.status());
        assertEquals(Hex.norm(Hex.zeros(14) + "0480"), Hex.of(cqe.segment()));
    }

    @Test
    void truncatedEntriesAreRefusedWithTheirSize() {
        assertEquals("submission queue entry needs 64 bytes, got 63",
                assertThrows(MalformedStructureException.class,
                        () -> SubmissionQueueEntry.wrap(MemorySegment.ofArray(new byte[63]))).getMessage());
        assertEquals("completion queue entry needs 16 bytes, got 15",
                assertThrows(MalformedStructureException.class,
                        () -> CompletionQueueEntry.wrap(MemorySegment.ofArray(new byte[15]))).getMessage());
    }
}
