package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.FeatureId;
import io.nvmf4j.protocol.admin.GetFeaturesCommand;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.protocol.admin.SetFeaturesCommand;
import io.nvmf4j.protocol.io.FlushCommand;
import io.nvmf4j.protocol.io.ReadCommand;
import io.nvmf4j.protocol.io.WriteCommand;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What Linux nvmet (admin-cmd.c, core.c) answers beyond the basics, and how it refuses: the Namespace Write
 * Protection Config feature (84h) with Identify NSATTR/NWPC and the I/O check of nvmet_io_cmd_check_access(),
 * Identify CNS 05h and 08h, and the features fabrics do not have. Status fields are written the Linux way with
 * the More bit masked off: {@code 0x4002} is INVALID_FIELD | DNR.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NvmetAnswersTest {

    private final TargetFixture fx = new TargetFixture();
    private final LoopHost host = fx.host().connectAndEnable(SUBNQN);

    @AfterEach
    void close() {
        fx.close();
    }

    private static int status(Request r) {
        return r.cqe().statusField() & 0x47FF; // DNR | SCT | SC, without More
    }

    private Request getFeature(FeatureId fid, long nsid) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetFeaturesCommand.create(sqe, fid);
        sqe.nsid(nsid);
        return host.submit(host.admin, sqe);
    }

    private Request setFeature(FeatureId fid, long nsid, int value) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        SetFeaturesCommand.create(sqe, fid, value);
        sqe.nsid(nsid);
        return host.submit(host.admin, sqe);
    }

    private Request identify(int cns, long nsid, int csi, MemorySegment data) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        IdentifyCommand.create(sqe, cns, nsid).csi(csi);
        return host.submit(host.admin, sqe, data);
    }

    private LoopHost.Queue io() {
        if (!host.ioQueues.containsKey(1)) {
            assertEquals(0, host.connectIo(SUBNQN, 1, 31).cqe().statusField());
        }
        return host.ioQueues.get(1);
    }

    private int write(long slba) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        WriteCommand.create(sqe, 1, slba, 1);
        return status(host.submit(io(), sqe, host.buffer(512)));
    }

    @Test
    void unknownFabricsCommandTypesAreInvalidOpcodesOnBothQueueTypesAsNvmet() {
        // nvmet_parse_fabrics_admin_cmd() / nvmet_parse_fabrics_io_cmd(): any FCTYPE it does not know
        for (int fctype : new int[] {0x02, 0x10, 0x7F, 0xC0, 0xFF}) {
            SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
            sqe.opcode(0x7F);
            Wire.u8(sqe.segment(), 4, fctype);
            assertEquals(0x4001, status(host.submit(host.admin, sqe)), "admin queue, fctype " + fctype);
            SubmissionQueueEntry onIo = SubmissionQueueEntry.allocate();
            onIo.opcode(0x7F);
            Wire.u8(onIo.segment(), 4, fctype);
            assertEquals(0x4001, status(host.submit(io(), onIo)), "I/O queue, fctype " + fctype);
        }
    }

    @Test
    void writeProtectionRefusesWritesButNotReadsAndFlushesAndIsReportedEverywhere() {
        assertEquals(0, status(getFeature(FeatureId.NAMESPACE_WRITE_PROTECTION, 1)));
        assertEquals(0, getFeature(FeatureId.NAMESPACE_WRITE_PROTECTION, 1).cqe().dw0(), "no write protect");
        assertEquals(0, write(0));

        assertEquals(0, status(setFeature(FeatureId.NAMESPACE_WRITE_PROTECTION, 1, 1)));
        assertEquals(1, getFeature(FeatureId.NAMESPACE_WRITE_PROTECTION, 1).cqe().dw0(), "write protect");
        assertEquals(0x0020, write(0), "NS_WRITE_PROTECTED, retryable (no DNR), as nvmet");
        SubmissionQueueEntry read = SubmissionQueueEntry.allocate();
        ReadCommand.create(read, 1, 0, 1);
        assertEquals(0, status(host.submit(io(), read, host.buffer(512))));
        SubmissionQueueEntry flush = SubmissionQueueEntry.allocate();
        FlushCommand.create(flush, 1);
        assertEquals(0, status(host.submit(io(), flush)));
        SubmissionQueueEntry zeroes = SubmissionQueueEntry.allocate();
        zeroes.opcode(0x08).nsid(1);
        assertEquals(0x0020, status(host.submit(io(), zeroes)), "Write Zeroes too");

        MemorySegment ns = host.buffer(4096);
        assertEquals(0, status(identify(0x00, 1, 0, ns)));
        assertEquals(1, Wire.u8(ns, 99), "NSATTR bit 0: write protected");
        MemorySegment changed = host.buffer(4096);
        SubmissionQueueEntry log = SubmissionQueueEntry.allocate();
        GetLogPageCommand.create(log, 0x04, 0xFFFF_FFFFL, 4096);
        assertEquals(0, status(host.submit(host.admin, log, changed)));
        assertEquals(1L, Wire.u32(changed, 0), "the namespace is in the Changed Namespace List (nvmet_ns_changed())");

        assertEquals(0, status(setFeature(FeatureId.NAMESPACE_WRITE_PROTECTION, 1, 0)));
        assertEquals(0, write(0));
        assertEquals(0, status(identify(0x00, 1, 0, ns)));
        assertEquals(0, Wire.u8(ns, 99));
    }

    @Test
    void writeProtectionOfAnUnknownNamespaceOrAnUnofferedStateIsRefused() {
        assertEquals(0x400B, status(getFeature(FeatureId.NAMESPACE_WRITE_PROTECTION, 9)), "INVALID_NS | DNR");
        assertEquals(0x400B, status(setFeature(FeatureId.NAMESPACE_WRITE_PROTECTION, 9, 1)));
        assertEquals(0x4002, status(setFeature(FeatureId.NAMESPACE_WRITE_PROTECTION, 1, 2)),
                "until power cycle: not offered by NWPC 1");
        assertEquals(0, getFeature(FeatureId.NAMESPACE_WRITE_PROTECTION, 1).cqe().dw0());
        MemorySegment id = host.buffer(4096);
        assertEquals(0, status(identify(0x01, 0, 0, id)));
        assertEquals(1, Wire.u8(id, 531), "NWPC: write protect and no write protect, as nvmet");
    }

    /** NVMe-oF 1.1, 2.1: no interrupts on a fabric; nvmet refuses these two with Invalid Field. */
    @Test
    void interruptFeaturesAreInvalidFieldsOnAFabric() {
        assertEquals(0x4002, status(getFeature(FeatureId.INTERRUPT_COALESCING, 0)));
        assertEquals(0x4002, status(getFeature(FeatureId.INTERRUPT_VECTOR_CONFIGURATION, 0)));
        assertEquals(0x4002, status(setFeature(FeatureId.INTERRUPT_COALESCING, 0, 0)));
        for (FeatureId f : new FeatureId[] {FeatureId.ARBITRATION, FeatureId.POWER_MANAGEMENT,
                FeatureId.TEMPERATURE_THRESHOLD, FeatureId.ERROR_RECOVERY, FeatureId.WRITE_ATOMICITY_NORMAL}) {
            Request r = getFeature(f, 0);
            assertEquals(0, status(r), f + ": mandatory, answered (a listed difference from nvmet)");
            assertEquals(0, r.cqe().dw0(), f.toString());
        }
    }

    /**
     * Get Features moves exactly the feature's data: 16 bytes for Host Identifier, none for the others
     * (nvmet_execute_get_features(): nvmet_check_transfer_len()); nvme-cli sends a buffer for FIDs such as 03h, 0Ch
     * or 81h without EXHID, and nvmet answers Data SGL Length Invalid before it looks at the FID.
     */
    @Test
    void getFeaturesWithADataBufferTheFeatureHasNotIsDataSglLengthInvalid() {
        for (FeatureId f : new FeatureId[] {FeatureId.LBA_RANGE_TYPE, FeatureId.AUTONOMOUS_POWER_STATE_TRANSITION,
                FeatureId.KEEP_ALIVE_TIMER, FeatureId.VOLATILE_WRITE_CACHE}) {
            SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
            GetFeaturesCommand.create(sqe, f);
            assertEquals(0x400F, status(host.submit(host.admin, sqe, host.buffer(256))), f.toString());
        }
        SubmissionQueueEntry hostId = SubmissionQueueEntry.allocate();
        GetFeaturesCommand.create(hostId, FeatureId.HOST_IDENTIFIER).cdw11(1);
        assertEquals(0x400F, status(host.submit(host.admin, hostId, host.buffer(8))), "8 bytes for a 16-byte ID");
        assertEquals(0, status(host.submit(host.admin, hostId, host.buffer(16))));
        // Set Features takes a longer SGL and uses none of it (nvmet_check_data_len_lte()), then refuses 81h
        SubmissionQueueEntry set = SubmissionQueueEntry.allocate();
        SetFeaturesCommand.create(set, FeatureId.HOST_IDENTIFIER, 1);
        assertEquals(0x400C, status(host.submit(host.admin, set, host.buffer(16))));
    }

    @Test
    void identifyCns05IsZeroesForTheNvmCommandSetAndNeedsANamespace() {
        MemorySegment d = host.buffer(4096);
        d.fill((byte) 0xEE);
        assertEquals(0, status(identify(0x05, 1, 0, d)));
        assertTrue(Wire.isZero(d, 0, 4096), "struct nvme_id_ns_nvm, nothing used");
        assertEquals(0x400B, status(identify(0x05, 9, 0, d)), "no such namespace");
        assertEquals(0x4002, status(identify(0x05, 1, 2, d)), "zoned: not supported");
    }

    @Test
    void identifyCns08IsTheCommandSetIndependentNamespace() {
        MemorySegment d = host.buffer(4096);
        d.fill((byte) 0xEE);
        assertEquals(0, status(identify(0x08, 1, 0, d)));
        // struct nvme_id_ns_cs_indep: nsfeat 0, nmic 1, rescap 2, fpi 3, anagrpid 4, nsattr 8, ..., nstat 14
        assertEquals(1, Wire.u8(d, 1), "NMIC shared");
        assertEquals(1, Wire.u8(d, 14), "NSTAT ready");
        assertEquals(0, Wire.u8(d, 8), "NSATTR");
        assertTrue(Wire.isZero(d, 15, 4096 - 15) && Wire.isZero(d, 2, 6) && Wire.u8(d, 0) == 0);
        assertEquals(0x400B, status(identify(0x08, 9, 0, d)));
        assertEquals(0x4002, status(identify(0x09, 1, 0, d)), "an unknown CNS: INVALID_FIELD | DNR");
    }
}
