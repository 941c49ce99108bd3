package io.nvmf4j.protocol.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Vectors from Linux {@code struct nvme_rw_command} / {@code struct nvme_dsm_cmd} offsets, written as literals. */
class IoCommandsTest {

    private static void le(byte[] b, int offset, long value, int width) {
        for (int i = 0; i < width; i++) {
            b[offset + i] = (byte) (value >>> (8 * i));
        }
    }

    private static byte[] bytes(SubmissionQueueEntry sqe) {
        return sqe.segment().toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void linuxStyleReadAtSlba12345678ForEightBlocksIsExactly64Bytes() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        ReadCommand.create(sqe, 1, 0x12345678L, 8);
        sqe.cid(0x002A);
        sqe.psdt(SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS); // nvme-rdma: NVME_CMD_SGL_METABUF (0x40)

        byte[] expected = new byte[64];
        expected[0] = 0x02;                    // nvme_cmd_read
        expected[1] = 0x40;                    // flags: PSDT 01b
        le(expected, 2, 0x002A, 2);            // command_id
        le(expected, 4, 1, 4);                 // nsid
        le(expected, 40, 0x12345678L, 8);      // slba
        le(expected, 48, 7, 2);                // length, 0's based: NLB 7 = 8 blocks
        le(expected, 50, 0, 2);                // control
        assertArrayEquals(expected, bytes(sqe));

        ReadCommand read = ReadCommand.wrap(SubmissionQueueEntry.wrap(MemorySegment.ofArray(expected)));
        assertEquals(0x12345678L, read.slba());
        assertEquals(7, read.nlb());
        assertEquals(8, read.blocks());
        assertEquals(32768, read.dataLength(4096));
        assertFalse(read.fua());
    }

    @Test
    void writeWithFuaAndLimitedRetrySetsControlBits14And15() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        WriteCommand.create(sqe, 5, 0xFFFF_FFFF_0000_0001L, 65536).fua(true).limitedRetry(true);
        byte[] b = bytes(sqe);
        assertEquals(0x01, b[0]);
        assertEquals((byte) 0xFF, b[48]);      // NLB 65535
        assertEquals((byte) 0xFF, b[49]);
        assertEquals(0x00, b[50]);
        assertEquals((byte) 0xC0, b[51]);      // control: NVME_RW_LR (1<<15) | NVME_RW_FUA (1<<14)
        assertEquals(0x01, b[40]);
        assertEquals((byte) 0xFF, b[47]);
        WriteCommand w = WriteCommand.wrap(sqe);
        assertTrue(w.fua() && w.limitedRetry());
        assertEquals(65536, w.blocks());
        assertThrows(IllegalArgumentException.class, () -> WriteCommand.create(sqe, 1, 0, 65537));
        assertThrows(IllegalArgumentException.class, () -> WriteCommand.create(sqe, 1, 0, 0));
    }

    @Test
    void writeZeroesDeallocateIsCdw12Bit25() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        WriteZeroesCommand.create(sqe, 1, 100, 16).deallocate(true);
        byte[] expected = new byte[64];
        expected[0] = 0x08;
        le(expected, 4, 1, 4);
        le(expected, 40, 100, 8);
        le(expected, 48, 15, 2);
        le(expected, 50, 1 << 9, 2);           // NVME_WZ_DEAC in the control word
        assertArrayEquals(expected, bytes(sqe));
        assertTrue(WriteZeroesCommand.wrap(sqe).deallocate());
        assertTrue(WriteZeroesCommand.wrap(sqe).toString().contains("deac"));
    }

    @Test
    void flushIsOpcodeZeroWithNsid() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        sqe.cdw(12, 0x1234);
        FlushCommand.create(sqe, FlushCommand.ALL_NAMESPACES);
        byte[] expected = new byte[64];
        le(expected, 4, 0xFFFF_FFFFL, 4);
        assertArrayEquals(expected, bytes(sqe));
        assertEquals(0xFFFF_FFFFL, FlushCommand.wrap(sqe).nsid());
    }

    @Test
    void rangeCheckCatchesEndOfNamespaceAndWrapAround() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        assertTrue(ReadCommand.create(sqe, 1, 992, 8).fitsIn(1000));
        assertFalse(ReadCommand.create(sqe, 1, 993, 8).fitsIn(1000));
        assertFalse(ReadCommand.create(sqe, 1, -4L, 8).fitsIn(1000));        // SLBA near 2^64 wraps
        assertFalse(ReadCommand.create(sqe, 1, 1000, 1).fitsIn(1000));
    }

    @Test
    void datasetManagementDeallocateOfTwoRangesMatchesLinuxDiscard() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        MemorySegment data = MemorySegment.ofArray(new byte[32]);
        DatasetManagementCommand.deallocate(sqe, 1,
                List.of(DsmRange.of(0x1000, 256), DsmRange.of(0x2_0000_0000L, 8)), data);

        byte[] expectedSqe = new byte[64];
        expectedSqe[0] = 0x09;
        le(expectedSqe, 4, 1, 4);
        le(expectedSqe, 40, 1, 4);             // nr: 2 ranges, 0's based
        le(expectedSqe, 44, 1 << 2, 4);        // attributes: NVME_DSMGMT_AD
        assertArrayEquals(expectedSqe, bytes(sqe));

        byte[] expectedData = new byte[32];
        le(expectedData, 0, 0, 4);             // cattr
        le(expectedData, 4, 256, 4);           // nlb (1's based)
        le(expectedData, 8, 0x1000, 8);        // slba
        le(expectedData, 20, 8, 4);
        le(expectedData, 24, 0x2_0000_0000L, 8);
        assertArrayEquals(expectedData, data.toArray(ValueLayout.JAVA_BYTE));

        DatasetManagementCommand dsm = DatasetManagementCommand.wrap(sqe);
        assertTrue(dsm.deallocate());
        assertEquals(32, dsm.dataLength());
        assertEquals(List.of(new DsmRange(0, 256, 0x1000), new DsmRange(0, 8, 0x2_0000_0000L)),
                dsm.decodeRanges(MemorySegment.ofArray(expectedData)));
    }

    @Test
    void datasetManagementNrBeyondTheBufferIsAPreciseError() {
        byte[] raw = new byte[64];
        raw[0] = 0x09;
        raw[40] = (byte) 0xFF;                 // 256 ranges = 4096 bytes
        DatasetManagementCommand dsm = DatasetManagementCommand.wrap(SubmissionQueueEntry.wrap(MemorySegment.ofArray(raw)));
        assertEquals(256, dsm.rangeCount());
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> dsm.decodeRanges(MemorySegment.ofArray(new byte[4080])));
        assertTrue(e.getMessage().contains("NR=255") && e.getMessage().contains("4096")
                && e.getMessage().contains("4080"), e.getMessage());
        assertThrows(MalformedStructureException.class, () -> DsmRange.decode(MemorySegment.ofArray(new byte[20]), 8));
    }

    @Test
    void dsmRangeIsSixteenBytesAndWrongOpcodeIsRefused() {
        assertEquals(16, DsmRange.SIZE);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        ReadCommand.create(sqe, 1, 0, 1);
        assertThrows(MalformedStructureException.class, () -> WriteCommand.wrap(sqe));
        assertEquals(IoOpcode.WRITE_ZEROES, IoOpcode.fromCode(8).orElseThrow());
        assertEquals(2, IoOpcode.dataTransfer(IoOpcode.READ.code()));
        assertEquals(1, IoOpcode.dataTransfer(IoOpcode.WRITE.code()));
    }
}
