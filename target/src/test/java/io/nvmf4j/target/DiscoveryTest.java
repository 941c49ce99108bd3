package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.HOST;
import static io.nvmf4j.target.TargetFixture.OTHER_HOST;
import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.AsyncEventRequestCommand;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The discovery subsystem and log page 70h (NVMe-oF 1.1, 5; nvmet_execute_disc_get_log_page()), checked at the
 * offsets of Linux {@code struct nvmf_disc_rsp_page_hdr} / {@code nvmf_disc_rsp_page_entry}.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class DiscoveryTest {

    private final TargetFixture fx = new TargetFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    private LoopHost discover(String hostNqn) {
        LoopHost h = fx.host(hostNqn);
        assertEquals(0, h.connectAdmin(Nqn.DISCOVERY_VALUE, 0).cqe().statusField());
        h.setProperty(0x14, LoopHost.CC_ENABLE_NVM);
        return h;
    }

    private Request logPage(LoopHost h, long offset, MemorySegment data) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetLogPageCommand.create(sqe, 0x70, 0, data.byteSize());
        // LPOL/LPOU as a peer sends them, any 64-bit value (the builder refuses unaligned ones)
        sqe.cdw(12, (int) offset);
        sqe.cdw(13, (int) (offset >>> 32));
        return h.submit(h.admin, sqe, data);
    }

    private static String text(MemorySegment d, long offset, int length) {
        byte[] b = d.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    @Test
    void logPageListsThisDiscoverySubsystemAndTheAllowedSubsystemsWithRdmaTsas() {
        LoopHost h = discover(HOST);
        MemorySegment d = h.buffer(3 * 1024);
        Request r = logPage(h, 0, d);
        assertEquals(0, r.cqe().statusField());
        assertEquals(fx.target.discoveryGeneration(), Wire.u64(d, 0), "GENCTR");
        assertEquals(2, Wire.u64(d, 8), "NUMREC");
        assertEquals(0, Wire.u16(d, 16), "RECFMT");

        long e0 = 1024;
        assertEquals(3, Wire.u8(d, e0 + 2), "entry 0: current discovery subsystem");
        assertEquals(Nqn.DISCOVERY_VALUE, text(d, e0 + 256, 256));

        long e1 = 2048;
        assertEquals(1, Wire.u8(d, e1), "TRTYPE rdma");
        assertEquals(1, Wire.u8(d, e1 + 1), "ADRFAM ipv4");
        assertEquals(2, Wire.u8(d, e1 + 2), "SUBTYPE nvme subsystem");
        // what nvmet reports for a new RDMA port: secure channel not specified, SQ flow control disable supported
        assertEquals(4, Wire.u8(d, e1 + 3), "TREQ not specified, sq flow control disable supported");
        assertEquals(1, Wire.u16(d, e1 + 4), "PORTID");
        assertEquals(0xFFFF, Wire.u16(d, e1 + 6), "CNTLID dynamic");
        assertEquals(32, Wire.u16(d, e1 + 8), "ASQSZ");
        assertEquals("4420", text(d, e1 + 32, 32), "TRSVCID");
        assertEquals(SUBNQN, text(d, e1 + 256, 256), "SUBNQN");
        assertEquals("127.0.0.1", text(d, e1 + 512, 256), "TRADDR");
        assertEquals(1, Wire.u8(d, e1 + 768), "RDMA_QPTYPE connected");
        assertEquals(1, Wire.u8(d, e1 + 769), "RDMA_PRTYPE not specified, as nvmet's configfs sets it");
        assertEquals(1, Wire.u8(d, e1 + 770), "RDMA_CMS rdma_cm");
        assertEquals(0, Wire.u16(d, e1 + 776), "RDMA_PKEY");
        assertEquals(DataDirection.CONTROLLER_TO_HOST, r.dataDirection());
    }

    @Test
    void subsystemsTheHostMayNotConnectToAreHiddenAndAllowingChangesTheGeneration() {
        LoopHost stranger = discover(OTHER_HOST);
        MemorySegment d = stranger.buffer(2048);
        logPage(stranger, 0, d);
        assertEquals(1, Wire.u64(d, 8), "only the discovery subsystem itself");
        long before = Wire.u64(d, 0);

        fx.subsystem.allowHost(OTHER_HOST);
        MemorySegment again = stranger.buffer(3072);
        logPage(stranger, 0, again);
        assertEquals(2, Wire.u64(again, 8));
        assertNotEquals(before, Wire.u64(again, 0), "GENCTR changed with the configuration");
    }

    @Test
    void headerOnlyReadsAndOffsetReadsReturnTheRightSlices() {
        LoopHost h = discover(HOST);
        MemorySegment header = h.buffer(16);
        assertEquals(0, logPage(h, 0, header).cqe().statusField());
        assertEquals(2, Wire.u64(header, 8), "NUMREC from a 16-byte read, as nvme-cli's first read");

        MemorySegment second = h.buffer(1024);
        assertEquals(0, logPage(h, 2048, second).cqe().statusField());
        assertEquals(SUBNQN, text(second, 256, 256), "LPO 2048 is the second entry");

        MemorySegment end = h.buffer(1024);
        end.fill((byte) 7);
        assertEquals(0, logPage(h, 3072, end).cqe().statusField(), "LPO at the end of the page");
        assertTrue(Wire.isZero(end, 0, 1024), "past the page: zeroes");

        SubmissionQueueEntry misaligned = SubmissionQueueEntry.allocate();
        GetLogPageCommand.create(misaligned, 0x70, 0, 16);
        misaligned.cdw(12, 2); // LPOL = 2
        assertEquals(0x6002, h.submit(h.admin, misaligned, h.buffer(16)).cqe().statusField(),
                "LPO not dword aligned");
        MemorySegment err = h.buffer(16);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetLogPageCommand.create(sqe, 0x02, 0xFFFF_FFFFL, 16);
        assertEquals(0x6002, h.submit(h.admin, sqe, err).cqe().statusField(), "only log page 70h");
    }

    /**
     * F5: the log page offset is a 64-bit unsigned number from the peer (NVMe Base 2.0, 5.16: an offset beyond the
     * log page is Invalid Field in Command). Compared unsigned: 2^63 and above used to be negative and threw inside
     * the copy, an Internal Error with a stack trace per command.
     */
    @Test
    void logPageOffsetsAtEveryBoundaryAreServedOrInvalidFieldNeverAnException() {
        LoopHost h = discover(HOST);
        long page = 3 * 1024; // header + 2 entries
        long[] served = {0, page - 4, page};
        for (long offset : served) {
            MemorySegment d = h.buffer(16);
            assertEquals(0, logPage(h, offset, d).cqe().statusField(), "LPO " + Long.toUnsignedString(offset));
        }
        long[] refused = {page + 4, 1L << 31, (1L << 32) + 4, 1L << 63, (1L << 63) + 4, -4L, -1L, Long.MAX_VALUE};
        for (long offset : refused) {
            MemorySegment d = h.buffer(16);
            d.fill((byte) 7);
            Request r = logPage(h, offset, d);
            assertEquals(0x4002, r.cqe().statusField() & 0x47FF, "LPO " + Long.toUnsignedString(offset)
                    + ": Invalid Field with DNR");
            assertTrue(r.cqe().statusField() == 0x6002 || r.cqe().statusField() == 0x4002,
                    "Invalid Field (with More when logged): " + Integer.toHexString(r.cqe().statusField()));
            assertEquals(0x0707070707070707L, Wire.u64(d, 0), "nothing copied for LPO "
                    + Long.toUnsignedString(offset));
        }
    }

    @Test
    void wildcardPortReportsTheAddressTheHostReached() {
        Port any = Port.rdma(7, "0.0.0.0", "4420").build();
        fx.target.addPort(any);
        any.addSubsystem(fx.subsystem);
        LoopHost h = new LoopHost(fx.target, any, HOST);
        h.admin = h.openQueue();
        h.admin.transport().localAddress = "192.0.2.10";
        h.submit(h.admin, LoopHost.connectSqe(0, 31, 0), h.connectData(0xFFFF, Nqn.DISCOVERY_VALUE, HOST));
        h.setProperty(0x14, LoopHost.CC_ENABLE_NVM);
        MemorySegment d = h.buffer(3072);
        logPage(h, 0, d);
        assertEquals("192.0.2.10", text(d, 2048 + 512, 256));
        assertEquals(7, Wire.u16(d, 2048 + 4));
    }

    @Test
    void discoveryChangeEventReachesConnectedDiscoveryControllers() {
        LoopHost h = discover(OTHER_HOST);
        SubmissionQueueEntry aer = SubmissionQueueEntry.allocate();
        AsyncEventRequestCommand.create(aer);
        Request pending = h.submit(h.admin, aer);
        assertFalse(pending.isCompleted());
        fx.subsystem.allowHost(OTHER_HOST);
        assertTrue(pending.isCompleted());
        // type 2 notice, info F0h discovery log change, log page 70h
        assertEquals(0x70_F0_02, pending.cqe().dw0());
    }

    /** nvmet_execute_disc_get_features() / _set_features(): no data either way, else Data SGL Length Invalid. */
    @Test
    void discoveryFeaturesWithADataBufferAreDataSglLengthInvalidLikeNvmet() {
        LoopHost h = discover(HOST);
        SubmissionQueueEntry get = SubmissionQueueEntry.allocate();
        io.nvmf4j.protocol.admin.GetFeaturesCommand.create(get, io.nvmf4j.protocol.admin.FeatureId.HOST_IDENTIFIER);
        assertEquals(0x400F, h.submit(h.admin, get, h.buffer(16)).cqe().statusField() & 0x47FF);
        SubmissionQueueEntry kato = SubmissionQueueEntry.allocate();
        io.nvmf4j.protocol.admin.GetFeaturesCommand.create(kato, io.nvmf4j.protocol.admin.FeatureId.KEEP_ALIVE_TIMER);
        assertEquals(0x400F, h.submit(h.admin, kato, h.buffer(4)).cqe().statusField() & 0x47FF);
        assertEquals(0, h.submit(h.admin, kato).cqe().statusField(), "without a buffer: answered");
    }

    @Test
    void discoveryControllerIdentifiesAsDiscoveryAndRefusesOtherCommands() {
        LoopHost h = discover(HOST);
        MemorySegment id = h.buffer(4096);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        IdentifyCommand.create(sqe, IdentifyCommand.CNS_CONTROLLER, 0);
        assertEquals(0, h.submit(h.admin, sqe, id).cqe().statusField());
        assertEquals(2, Wire.u8(id, 111), "CNTRLTYPE discovery");
        assertEquals(0, Wire.u8(id, 77), "MDTS");
        assertEquals(4, Wire.u8(id, 261), "LPA extended data");
        assertEquals(0x8000_0000L, Wire.u32(id, 92), "OAES discovery log change");
        assertEquals(Nqn.DISCOVERY_VALUE, text(id, 768, 256));

        IdentifyCommand.create(sqe, IdentifyCommand.CNS_NAMESPACE, 1);
        assertEquals(0x6002, h.submit(h.admin, sqe, h.buffer(4096)).cqe().statusField(),
                "nvmet (6.1): INVALID_FIELD | DNR for other CNS values");
        SubmissionQueueEntry createSq = SubmissionQueueEntry.allocate();
        createSq.opcode(0x01); // Create I/O Submission Queue: not on a fabric, not on discovery
        assertEquals(0x6001, h.submit(h.admin, createSq).cqe().statusField());
        Request io = h.connectIo(Nqn.DISCOVERY_VALUE, 1, 31);
        assertEquals(0x4182, io.cqe().statusField(), "a discovery controller has no I/O queues");
        assertEquals(42, io.cqe().dw0());
    }

    @Test
    void discoveryCommandsBeforeReadyAreInvalidOpcodes() {
        LoopHost h = fx.host(HOST);
        h.connectAdmin(Nqn.DISCOVERY_VALUE, 0);
        Request r = logPage(h, 0, h.buffer(1024));
        assertEquals(0x6001, r.cqe().statusField());
    }
}
