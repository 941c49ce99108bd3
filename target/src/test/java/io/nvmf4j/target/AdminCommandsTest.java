package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.AbortCommand;
import io.nvmf4j.protocol.admin.AsyncEventRequestCommand;
import io.nvmf4j.protocol.admin.FeatureId;
import io.nvmf4j.protocol.admin.GetFeaturesCommand;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.admin.KeepAliveCommand;
import io.nvmf4j.protocol.admin.SetFeaturesCommand;
import io.nvmf4j.protocol.io.ReadCommand;
import io.nvmf4j.protocol.io.WriteCommand;
import io.nvmf4j.target.backend.RamBackend;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Get Log Page, Get/Set Features, Asynchronous Event Request, Keep Alive and Abort on an NVM controller, with the
 * statuses of nvmet's admin-cmd.c.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AdminCommandsTest {

    private final TargetFixture fx = new TargetFixture();
    private final LoopHost host = fx.host().connectAndEnable(SUBNQN);

    @AfterEach
    void close() {
        fx.close();
    }

    private Request getLogPage(int lid, long nsid, MemorySegment data, boolean rae) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetLogPageCommand.create(sqe, lid, nsid, data.byteSize()).rae(rae);
        return host.submit(host.admin, sqe, data);
    }

    private Request getFeature(FeatureId fid, int cdw11, MemorySegment data) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetFeaturesCommand.create(sqe, fid).cdw11(cdw11);
        return host.submit(host.admin, sqe, data);
    }

    private Request setFeature(FeatureId fid, int value) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        SetFeaturesCommand.create(sqe, fid, value);
        return host.submit(host.admin, sqe);
    }

    private Request asyncEventRequest() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        AsyncEventRequestCommand.create(sqe);
        return host.submit(host.admin, sqe);
    }

    private LoopHost.Queue io() {
        if (!host.ioQueues.containsKey(1)) {
            assertEquals(0, host.connectIo(SUBNQN, 1, 31).cqe().statusField());
        }
        return host.ioQueues.get(1);
    }

    @Test
    void errorLogListsFailuresNewestFirstWithLocationLbaAndMoreBit() {
        SubmissionQueueEntry read = SubmissionQueueEntry.allocate();
        ReadCommand.create(read, 1, 2047, 2).sqe().cid(0x77);
        Request failed = host.submit(io(), read, host.buffer(1024));
        assertEquals(0x6080, failed.cqe().statusField(), "LBA_RANGE | DNR | More");
        SubmissionQueueEntry bad = SubmissionQueueEntry.allocate();
        bad.opcode(0x7E).nsid(1).cid(0x78);
        assertEquals(0x6001, host.submit(io(), bad).cqe().statusField(), "INVALID_OPCODE | DNR | More");

        MemorySegment log = host.buffer(3 * 64);
        assertEquals(0, getLogPage(0x01, 0xFFFF_FFFFL, log, false).cqe().statusField());
        // newest: the invalid opcode
        assertEquals(2, Wire.u64(log, 0), "error count");
        assertEquals(1, Wire.u16(log, 8), "SQID");
        assertEquals(0x78, Wire.u16(log, 10), "CID");
        assertEquals(0x6001 << 1, Wire.u16(log, 12), "status field as in the CQE, phase bit 0");
        assertEquals(0, Wire.u16(log, 14), "parameter location: opcode");
        // then the LBA out of range
        assertEquals(1, Wire.u64(log, 64));
        assertEquals(0x77, Wire.u16(log, 74));
        assertEquals(0x6080 << 1, Wire.u16(log, 76));
        assertEquals(40, Wire.u16(log, 78), "parameter location: SLBA");
        assertEquals(2047, Wire.u64(log, 80), "LBA");
        assertEquals(1L, Wire.u32(log, 88), "NSID");
        assertTrue(Wire.isZero(log, 128, 64), "unused slot is zero");
    }

    @Test
    void smartLogCountsHostCommandsAndDataUnitsPerNamespaceAndInTotal() {
        fx.subsystem.addNamespace(SubsystemNamespace.of(2, RamBackend.allocate(4 << 20, 4096)));
        LoopHost.Queue q = io();
        for (int i = 0; i < 3; i++) {
            SubmissionQueueEntry w = SubmissionQueueEntry.allocate();
            WriteCommand.create(w, 1, i * 8L, 8);
            assertEquals(0, host.submit(q, w, host.buffer(4096)).cqe().statusField());
        }
        SubmissionQueueEntry r = SubmissionQueueEntry.allocate();
        ReadCommand.create(r, 2, 0, 250); // 250 * 4096 = 2000 sectors = 2 data units
        assertEquals(0, host.submit(q, r, host.buffer(250 * 4096)).cqe().statusField());

        MemorySegment smart = host.buffer(512);
        assertEquals(0, getLogPage(0x02, 1, smart, false).cqe().statusField());
        assertEquals(0, Wire.u64(smart, 32), "data units read, ns 1");
        assertEquals(1, Wire.u64(smart, 48), "24 sectors written round up to 1 data unit");
        assertEquals(0, Wire.u64(smart, 64), "host read commands");
        assertEquals(3, Wire.u64(smart, 80), "host write commands");

        assertEquals(0, getLogPage(0x02, 0xFFFF_FFFFL, smart, false).cqe().statusField());
        assertEquals(2, Wire.u64(smart, 32), "data units read, all");
        assertEquals(1, Wire.u64(smart, 48));
        assertEquals(1, Wire.u64(smart, 64));
        assertEquals(3, Wire.u64(smart, 80));
        assertEquals(0, Wire.u64(smart, 176), "no errors logged yet");

        assertEquals(0x600B, getLogPage(0x02, 9, smart, false).cqe().statusField(), "unknown NSID");
        assertEquals(0x0006, getLogPage(0x02, 0xFFFF_FFFFL, host.buffer(256), false).cqe().statusField(),
                "partial SMART page: INTERNAL, as nvmet");
        assertEquals(1, Wire.u64(smart, 176) + 1, "sanity");
        assertEquals(0, getLogPage(0x02, 0xFFFF_FFFFL, smart, false).cqe().statusField());
        assertEquals(1, Wire.u64(smart, 176), "the INVALID_NS above is in the error count");
    }

    @Test
    void unknownLogPageIsInvalidFieldPointingAtLid() {
        Request r = getLogPage(0x0D, 0xFFFF_FFFFL, host.buffer(512), false);
        assertEquals(0x6002, r.cqe().statusField());
        MemorySegment log = host.buffer(64);
        getLogPage(0x01, 0xFFFF_FFFFL, log, false);
        assertEquals(40, Wire.u16(log, 14), "location LID");
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetLogPageCommand.create(sqe, 0x01, 0xFFFF_FFFFL, 64);
        Request wrongLength = host.submit(host.admin, sqe, host.buffer(60)); // SGL shorter than NUMD
        assertEquals(0x600F, wrongLength.cqe().statusField());
    }

    @Test
    void asyncEventFiresOnNamespaceChangeAndChangedNamespaceListNamesIt() {
        Request aer = asyncEventRequest();
        assertFalse(aer.isCompleted(), "held until an event");
        fx.subsystem.addNamespace(SubsystemNamespace.of(2, RamBackend.allocate(1 << 16, 512)));
        assertTrue(aer.isCompleted());
        assertEquals(0, aer.cqe().statusField());
        // type 2 (notice), info 0 (namespace attribute changed), log page 04h
        assertEquals(0x04_00_02, aer.cqe().dw0());
        assertTrue(host.admin.transport().responses.contains(aer), "completed through the transport");

        // masked until the log is read: a second change raises nothing
        Request aer2 = asyncEventRequest();
        fx.subsystem.enableNamespace(1, false);
        assertFalse(aer2.isCompleted());

        MemorySegment list = host.buffer(4096);
        assertEquals(0, getLogPage(0x04, 0xFFFF_FFFFL, list, false).cqe().statusField());
        assertEquals(2L, Wire.u32(list, 0));
        assertEquals(1L, Wire.u32(list, 4));
        assertEquals(0L, Wire.u32(list, 8));
        // read without RAE: re-armed, and the list is empty now
        fx.subsystem.enableNamespace(1, true);
        assertTrue(aer2.isCompleted());
        assertEquals(0x04_00_02, aer2.cqe().dw0());
        assertEquals(0, getLogPage(0x04, 0xFFFF_FFFFL, list, true).cqe().statusField());
        assertEquals(1L, Wire.u32(list, 0));
        assertEquals(0L, Wire.u32(list, 4));
        // read with RAE: still masked
        Request aer3 = asyncEventRequest();
        fx.subsystem.removeNamespace(2);
        assertFalse(aer3.isCompleted());
    }

    @Test
    void moreThanFourOutstandingAsyncEventRequestsAreRefusedAndTheyFailWhenTheAdminQueueGoes() {
        Request[] held = new Request[4];
        for (int i = 0; i < 4; i++) {
            held[i] = asyncEventRequest();
            assertFalse(held[i].isCompleted());
        }
        Request fifth = asyncEventRequest();
        assertEquals(0x4105, fifth.cqe().statusField(), "ASYNC_LIMIT | DNR");
        host.admin.sq().destroy();
        for (Request r : held) {
            assertTrue(r.isCompleted());
            assertEquals(0x4006, r.cqe().statusField(), "INTERNAL | DNR");
        }
    }

    @Test
    void asyncEventsCanBeDisabledAndUnsupportedBitsAreRefused() {
        // NVMET_AEN_CFG_OPTIONAL: namespace attribute and ANA change notices
        assertEquals(0x900, getFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 0, MemorySegment.NULL).cqe().dw0());
        Request bad = setFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 1 << 9);
        assertEquals(0x6002, bad.cqe().statusField());
        assertEquals(0, setFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 0).cqe().statusField());
        Request aer = asyncEventRequest();
        fx.subsystem.addNamespace(SubsystemNamespace.of(2, RamBackend.allocate(1 << 16, 512)));
        assertFalse(aer.isCompleted(), "namespace notices disabled");
    }

    @Test
    void numberOfQueuesKeepAliveVolatileWriteCacheAndHostIdFeatures() {
        Request nq = setFeature(FeatureId.NUMBER_OF_QUEUES, 3 << 16 | 3);
        assertEquals(0, nq.cqe().statusField());
        assertEquals(127 << 16 | 127, nq.cqe().dw0(), "allocated: max_qid - 1, 0's based");
        assertEquals(0x4002, setFeature(FeatureId.NUMBER_OF_QUEUES, 0xFFFF).cqe().statusField());
        assertEquals(127 << 16 | 127, getFeature(FeatureId.NUMBER_OF_QUEUES, 0, MemorySegment.NULL).cqe().dw0());

        Request kato = setFeature(FeatureId.KEEP_ALIVE_TIMER, 2500);
        assertEquals(3, kato.cqe().dw0(), "nvmet reports the rounded-up seconds");
        assertEquals(3000, getFeature(FeatureId.KEEP_ALIVE_TIMER, 0, MemorySegment.NULL).cqe().dw0());

        assertEquals(1, getFeature(FeatureId.VOLATILE_WRITE_CACHE, 0, MemorySegment.NULL).cqe().dw0());
        assertEquals(0, setFeature(FeatureId.VOLATILE_WRITE_CACHE, 0).cqe().statusField());
        assertEquals(0, getFeature(FeatureId.VOLATILE_WRITE_CACHE, 0, MemorySegment.NULL).cqe().dw0());
        assertFalse(host.controller().volatileWriteCacheEnabled());

        MemorySegment id = host.buffer(16);
        assertEquals(0, getFeature(FeatureId.HOST_IDENTIFIER, 1, id).cqe().statusField());
        assertArrayEquals(host.hostId, id.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(0x6002, getFeature(FeatureId.HOST_IDENTIFIER, 0, id).cqe().statusField(), "EXHID required");
        assertEquals(0x400C, setFeature(FeatureId.HOST_IDENTIFIER, 0).cqe().statusField());

        assertEquals(0x6002, setFeature(FeatureId.TIMESTAMP, 0).cqe().statusField(), "unsupported feature");
        assertEquals(0, getFeature(FeatureId.ARBITRATION, 0, MemorySegment.NULL).cqe().dw0());
    }

    @Test
    void abortIsCompletedWithCommandNotAborted() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        AbortCommand.create(sqe, 1, 5);
        Request r = host.submit(host.admin, sqe);
        assertEquals(0, r.cqe().statusField());
        assertEquals(1, r.cqe().dw0() & 1, "DW0 bit 0: command not aborted");
    }

    @Test
    void keepAliveWithoutATimeoutIsKeepAliveTimeoutInvalid() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        KeepAliveCommand.create(sqe);
        assertEquals(0x001A, host.submit(host.admin, sqe).cqe().statusField());
        setFeature(FeatureId.KEEP_ALIVE_TIMER, 10_000);
        KeepAliveCommand.create(sqe);
        assertEquals(0, host.submit(host.admin, sqe).cqe().statusField());
    }

    @Test
    void unsupportedAdminOpcodeIsInvalidOpcode() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        sqe.opcode(0x80); // Format NVM
        assertEquals(0x6001, host.submit(host.admin, sqe).cqe().statusField());
    }

    @Test
    void sqHeadAdvancesWithEveryCompletionAndWraps() {
        // admin SQSIZE 31: 32 entries; Connect + 2 property commands done in connectAndEnable
        assertEquals(3, host.admin.transport().responses.getLast().cqe().sqHead());
        for (int i = 0; i < 29; i++) {
            host.getProperty(0x1C, false);
        }
        assertEquals(0, host.admin.transport().responses.getLast().cqe().sqHead(), "32 % 32");
    }
}
