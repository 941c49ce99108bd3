package io.nvmf4j.protocol.admin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class AdminCommandsTest {

    private static byte[] bytes(SubmissionQueueEntry sqe) {
        return sqe.segment().toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void identifyControllerMatchesLinuxNvmeIdentifyLayout() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        IdentifyCommand.create(sqe, IdentifyCommand.CNS_CONTROLLER, 0).cntid(0x1234);
        sqe.cid(7);
        byte[] expected = new byte[64];
        expected[0] = 0x06;                 // nvme_admin_identify
        Bytes.le(expected, 2, 7, 2);        // command_id
        expected[40] = 0x01;                // cns
        Bytes.le(expected, 42, 0x1234, 2);  // ctrlid
        assertArrayEquals(expected, bytes(sqe));

        IdentifyCommand decoded = IdentifyCommand.wrap(SubmissionQueueEntry.wrap(MemorySegment.ofArray(expected)));
        assertEquals(1, decoded.cns());
        assertEquals(0x1234, decoded.cntid());
    }

    @Test
    void identifyNamespaceCarriesNsidAndCsi() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        IdentifyCommand.create(sqe, IdentifyCommand.CNS_NAMESPACE_DESCRIPTOR_LIST, 0xFFFF_FFFEL).csi(2);
        byte[] b = bytes(sqe);
        assertEquals((byte) 0xFE, b[4]);
        assertEquals((byte) 0xFF, b[7]);
        assertEquals(0x03, b[40]);
        assertEquals(0x02, b[47]);
    }

    @Test
    void getLogPageSmartOf512BytesEncodesNumdlAs127() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetLogPageCommand.create(sqe, 0x02, 0xFFFF_FFFFL, 512).rae(true);
        byte[] expected = new byte[64];
        expected[0] = 0x02;
        Bytes.le(expected, 4, 0xFFFF_FFFFL, 4);
        expected[40] = 0x02;                // lid
        expected[41] = (byte) 0x80;         // lsp 0, rae = bit 15 of CDW10
        Bytes.le(expected, 42, 127, 2);     // numdl: 128 dwords, 0's based
        assertArrayEquals(expected, bytes(sqe));
        GetLogPageCommand cmd = GetLogPageCommand.wrap(sqe);
        assertEquals(512, cmd.lengthBytes());
        assertTrue(cmd.rae());
    }

    @Test
    void getLogPageLargeLengthSplitsNumdAcrossNumdlAndNumduAndOffsetIsLpolLpou() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        long bytes = 1024L + 1024L * 300; // 300 discovery entries: 77056 dwords
        GetLogPageCommand.create(sqe, 0x70, 0, bytes).offset(0x1_0000_0400L).lsp(1);
        byte[] b = bytes(sqe);
        long numd = bytes / 4 - 1; // 0x12CFF
        assertEquals(0x70, b[40]);
        assertEquals(0x01, b[41]);
        assertEquals((byte) (numd & 0xFF), b[42]);
        assertEquals((byte) ((numd >>> 8) & 0xFF), b[43]);
        assertEquals((byte) ((numd >>> 16) & 0xFF), b[44]);
        assertEquals(0, b[45]);
        assertEquals(0x00, b[48]);
        assertEquals(0x04, b[49]);
        assertEquals(0x01, b[52]); // LPOU
        assertEquals(bytes, GetLogPageCommand.wrap(sqe).lengthBytes());
        assertEquals(0x1_0000_0400L, GetLogPageCommand.wrap(sqe).offset());
    }

    @Test
    void getLogPageWithUnalignedOffsetFailsValidation() {
        byte[] raw = new byte[64];
        raw[0] = 0x02;
        raw[40] = 0x01;
        raw[48] = 0x02; // LPOL = 2
        GetLogPageCommand cmd = GetLogPageCommand.wrap(SubmissionQueueEntry.wrap(MemorySegment.ofArray(raw)));
        MalformedStructureException e = assertThrows(MalformedStructureException.class, cmd::validate);
        assertTrue(e.getMessage().contains("LPOL"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> GetLogPageCommand.create(SubmissionQueueEntry.allocate(), 1, 0, 6));
    }

    @Test
    void setFeaturesNumberOfQueuesIsZeroBasedNsqrAndNcqr() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        SetFeaturesCommand.numberOfQueues(sqe, new NumberOfQueues(4, 2));
        byte[] expected = new byte[64];
        expected[0] = 0x09;
        expected[40] = 0x07;
        Bytes.le(expected, 44, 3, 2);  // NSQR = 4 - 1
        Bytes.le(expected, 46, 1, 2);  // NCQR = 2 - 1
        assertArrayEquals(expected, bytes(sqe));
        assertEquals(new NumberOfQueues(4, 2), SetFeaturesCommand.wrap(sqe).numberOfQueues());
    }

    @Test
    void numberOfQueuesRejectsReservedFfffh() {
        assertThrows(MalformedStructureException.class, () -> NumberOfQueues.fromDword(0x0000_FFFF));
        assertThrows(MalformedStructureException.class, () -> NumberOfQueues.fromDword(0xFFFF_0000));
        assertEquals(new NumberOfQueues(65535, 1), NumberOfQueues.fromDword(0x0000_FFFE));
    }

    @Test
    void setFeaturesKeepAliveTimerPutsKatoMillisInCdw11AndSaveInBit31() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        SetFeaturesCommand.keepAliveTimer(sqe, 120_000).save(true);
        byte[] b = bytes(sqe);
        assertEquals(0x0F, b[40]);
        assertEquals((byte) 0x80, b[43]);
        assertEquals(120_000, Bytes_le32(b, 44));
        assertEquals(120_000, SetFeaturesCommand.wrap(sqe).keepAliveTimeoutMillis());
    }

    @Test
    void getFeaturesSelectsSavedValue() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetFeaturesCommand.create(sqe, FeatureId.VOLATILE_WRITE_CACHE).sel(GetFeaturesCommand.SEL_SAVED);
        byte[] b = bytes(sqe);
        assertEquals(0x0A, b[0]);
        assertEquals(0x06, b[40]);
        assertEquals(0x02, b[41]); // SEL in bits 10:8
        assertEquals(FeatureId.HOST_IDENTIFIER, FeatureId.fromCode(0x81).orElseThrow());
    }

    @Test
    void abortCarriesSqidThenCidInCdw10() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        AbortCommand.create(sqe, 3, 0xBEEF);
        byte[] b = bytes(sqe);
        assertEquals(0x08, b[0]);
        assertEquals(3, b[40]);
        assertEquals((byte) 0xEF, b[42]);
        assertEquals((byte) 0xBE, b[43]);
        AbortCommand a = AbortCommand.wrap(sqe);
        assertEquals(3, a.targetSqid());
        assertEquals(0xBEEF, a.targetCid());
    }

    @Test
    void keepAliveAndAsyncEventRequestHaveOnlyAnOpcode() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        sqe.cdw(10, -1);
        KeepAliveCommand.create(sqe);
        byte[] expected = new byte[64];
        expected[0] = 0x18;
        assertArrayEquals(expected, bytes(sqe));
        AsyncEventRequestCommand.create(sqe);
        expected[0] = 0x0C;
        assertArrayEquals(expected, bytes(sqe));
    }

    @Test
    void asyncEventDw0MatchesNvmetAddAsyncEventLayout() {
        // nvmet: NVME_AER_TYPE_NOTICE (2) | NVME_AER_NOTICE_NS_CHANGED (0) << 8 | NVME_LOG_CHANGED_NS (4) << 16
        assertEquals(0x0004_0002, AsyncEvent.namespaceAttributeChanged().toDw0());
        // discovery change: 2 | 0xF0 << 8 | 0x70 << 16
        assertEquals(0x0070_F002, AsyncEvent.discoveryLogChanged().toDw0());
        AsyncEvent smart = AsyncEvent.fromDw0(0xFF02_0101); // reserved bits 31:24 ignored
        assertEquals(AsyncEvent.TYPE_SMART_HEALTH, smart.type());
        assertEquals(0x01, smart.info());
        assertEquals(0x02, smart.logPageId());
    }

    @Test
    void wrappingTheWrongOpcodeIsAPreciseError() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        KeepAliveCommand.create(sqe);
        MalformedStructureException e = assertThrows(MalformedStructureException.class, () -> IdentifyCommand.wrap(sqe));
        assertTrue(e.getMessage().contains("IDENTIFY") && e.getMessage().contains("18h"), e.getMessage());
        assertFalse(AdminOpcode.fromCode(0x7F).isPresent(), "fabrics 7Fh is not an admin opcode here");
        assertEquals(AdminOpcode.KEEP_ALIVE, AdminOpcode.fromCode(0x18).orElseThrow());
    }

    private static int Bytes_le32(byte[] b, int off) {
        return (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF) << 16 | (b[off + 3] & 0xFF) << 24;
    }
}
