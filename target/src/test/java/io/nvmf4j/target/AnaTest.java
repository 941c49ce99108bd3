package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.AsyncEventRequestCommand;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.io.ReadCommand;
import io.nvmf4j.protocol.log.AnaLogPage;
import io.nvmf4j.protocol.log.AnaState;
import io.nvmf4j.target.backend.RamBackend;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One subsystem through two ports (two paths), namespace 1 in ANA group 1 and namespace 2 in group 2, as a Linux
 * host with native multipath sees them: Identify reports ANA, the ANA log page (0Ch) gives each path's states, I/O
 * on a path where the group is not accessible fails with the path status nvmet_check_ana_state() returns, and a
 * state changed at run time reaches the hosts on that port as an ANA change notice without dropping them.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AnaTest {

    /** Linux's ana_log_size for NANAGRPID 128 and MNAN 1024: header + 128 descriptors + 1024 NSIDs. */
    static final int LINUX_ANA_LOG_SIZE = 16 + 128 * 32 + 1024 * 4;

    TargetFixture fx;
    Port second;

    @BeforeEach
    void start() {
        fx = new TargetFixture();
        fx.subsystem.addNamespace(SubsystemNamespace.of(2, RamBackend.allocate(1 << 20, 512)).anaGroupId(2));
        fx.port.anaState(2, AnaState.OPTIMIZED);
        second = Port.rdma(2, "127.0.0.1", "4421").build();
        second.anaState(1, AnaState.NON_OPTIMIZED);
        second.anaState(2, AnaState.INACCESSIBLE);
        fx.target.addPort(second);
        second.addSubsystem(fx.subsystem);
    }

    @AfterEach
    void close() {
        fx.close();
    }

    LoopHost connect(Port port) {
        LoopHost h = new LoopHost(fx.target, port, TargetFixture.HOST);
        h.connectAndEnable(SUBNQN);
        assertEquals(0, h.connectIo(SUBNQN, 1, 31).cqe().statusField());
        return h;
    }

    AnaLogPage anaLog(LoopHost h, boolean groupsOnly) {
        MemorySegment d = h.buffer(LINUX_ANA_LOG_SIZE);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetLogPageCommand.create(sqe, 0x0C, 0xFFFF_FFFFL, LINUX_ANA_LOG_SIZE).lsp(groupsOnly ? 1 : 0);
        assertEquals(0, h.submit(h.admin, sqe, d).cqe().statusField());
        return AnaLogPage.decode(d);
    }

    Request read(LoopHost h, long nsid) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        ReadCommand.create(sqe, nsid, 0, 1);
        return h.submit(h.ioQueues.get(1), sqe, h.buffer(512));
    }

    @Test
    void identifyReportsAnaAsNvmetDoes() {
        LoopHost h = connect(fx.port);
        MemorySegment d = h.buffer(4096);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        IdentifyCommand.create(sqe, IdentifyCommand.CNS_CONTROLLER, 0);
        assertEquals(0, h.submit(h.admin, sqe, d).cqe().statusField());
        IdentifyController id = IdentifyController.wrap(d);
        assertEquals(0x0B, id.cmic(), "CMIC bit 3: ANA reporting");
        assertEquals(0x1F, id.anacap());
        assertEquals(10, id.anatt());
        assertEquals(128, id.anagrpmax());
        assertEquals(128, id.nanagrpid());
        assertEquals(1 << 11, id.oaes() & 1 << 11, "OAES: ANA change notices");
        IdentifyCommand.create(sqe, IdentifyCommand.CNS_NAMESPACE, 2);
        assertEquals(0, h.submit(h.admin, sqe, d).cqe().statusField());
        assertEquals(2, IdentifyNamespace.wrap(d).anagrpid());
    }

    @Test
    void eachPathReportsItsOwnStates() {
        LoopHost a = connect(fx.port);
        LoopHost b = connect(second);
        assertEquals(List.of(new AnaLogPage.Group(1, 1, AnaState.OPTIMIZED, List.of(1L)),
                new AnaLogPage.Group(2, 1, AnaState.OPTIMIZED, List.of(2L))), anaLog(a, false).groups());
        AnaLogPage viaB = anaLog(b, false);
        assertEquals(2, viaB.changeCount(), "two changes on port 2");
        assertEquals(List.of(new AnaLogPage.Group(1, 2, AnaState.NON_OPTIMIZED, List.of(1L)),
                new AnaLogPage.Group(2, 2, AnaState.INACCESSIBLE, List.of(2L))), viaB.groups());
        assertEquals(List.of(), anaLog(b, true).groups().get(1).nsids(), "RGO: groups only");
    }

    @Test
    void theLogPageOffsetIsHonouredAndPastThePageReadsZeroes() {
        LoopHost b = connect(second);
        MemorySegment d = b.buffer(64);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetLogPageCommand.create(sqe, 0x0C, 0xFFFF_FFFFL, 64).offset(16);
        assertEquals(0, b.submit(b.admin, sqe, d).cqe().statusField());
        assertEquals(1, Wire.u32(d, 0), "the first group descriptor starts at byte 16 of the page");
        assertEquals(AnaState.NON_OPTIMIZED.code(), Wire.u8(d, 16));
        GetLogPageCommand.create(sqe, 0x0C, 0xFFFF_FFFFL, 64).offset(4096);
        d.fill((byte) 0x55);
        assertEquals(0, b.submit(b.admin, sqe, d).cqe().statusField());
        assertEquals(0, Wire.u64(d, 0), "past the page: zeroes, as SPDK serves a chunked read");
    }

    @ParameterizedTest(name = "{0} -> status {1}")
    @CsvSource({"inaccessible, 0x302", "persistent-loss, 0x301", "change, 0x303", "non-optimized, 0x000"})
    void ioOnAPathWhereTheGroupIsNotAccessibleFailsWithThePathStatus(String state, String status) {
        second.anaState(2, AnaState.fromLabel(state).orElseThrow());
        LoopHost b = connect(second);
        Request r = read(b, 2);
        assertEquals(Integer.decode(status), r.cqe().statusField() & 0x7FF);
        assertFalse(r.status().dnr(), "a path error: the host may retry on another path");
        assertEquals(0, read(b, 1).cqe().statusField(), "group 1 is served on this path");
        assertEquals(0, read(connect(fx.port), 2).cqe().statusField(), "and group 2 on the other path");
    }

    @Test
    void aStateChangedAtRunTimeNotifiesTheHostsOfThatPortOnly() {
        LoopHost a = connect(fx.port);
        LoopHost b = connect(second);
        SubmissionQueueEntry aerA = SubmissionQueueEntry.allocate();
        AsyncEventRequestCommand.create(aerA);
        Request eventA = a.submit(a.admin, aerA);
        SubmissionQueueEntry aerB = SubmissionQueueEntry.allocate();
        AsyncEventRequestCommand.create(aerB);
        Request eventB = b.submit(b.admin, aerB);

        second.anaState(2, AnaState.OPTIMIZED);
        assertTrue(eventB.isCompleted());
        assertEquals(0x000C_0302, eventB.cqe().dw0(), "notice, ANA change, log page 0Ch");
        assertFalse(eventA.isCompleted(), "port 1 did not change");
        assertEquals(0, read(b, 2).cqe().statusField(), "the host stayed connected and is served now");
        assertEquals(AnaState.OPTIMIZED, anaLog(b, false).groups().get(1).state());

        // masked until the log is read, re-armed after
        SubmissionQueueEntry again = SubmissionQueueEntry.allocate();
        AsyncEventRequestCommand.create(again);
        Request next = b.submit(b.admin, again);
        second.anaState(1, AnaState.OPTIMIZED);
        assertTrue(next.isCompleted(), "re-armed by the log read above");
        assertEquals(4, second.anaChangeCount());
    }

    @Test
    void discoveryListsReferralsAfterTheSubsystems() {
        fx.port.addReferral(new Port.Referral(1, 1, "192.0.2.7", "4420", 9, 0));
        LoopHost h = fx.host(TargetFixture.HOST);
        assertEquals(0, h.connectAdmin(io.nvmf4j.protocol.Nqn.DISCOVERY_VALUE, 0).cqe().statusField());
        h.setProperty(0x14, LoopHost.CC_ENABLE_NVM);
        MemorySegment d = h.buffer(4 * 1024);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetLogPageCommand.create(sqe, 0x70, 0, d.byteSize());
        assertEquals(0, h.submit(h.admin, sqe, d).cqe().statusField());
        assertEquals(3, Wire.u64(d, 8), "NUMREC: itself, the subsystem, the referral");
        long e = 3 * 1024;
        assertEquals(1, Wire.u8(d, e + 2), "SUBTYPE 1: referral to a discovery service");
        assertEquals(9, Wire.u16(d, e + 4), "the referral's port ID");
        assertEquals("4420", new String(d.asSlice(e + 32, 4).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), UTF_8));
        assertEquals("192.0.2.7", new String(d.asSlice(e + 512, 9).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), UTF_8));
        assertEquals(io.nvmf4j.protocol.Nqn.DISCOVERY_VALUE, new String(d.asSlice(e + 256, 36)
                .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), UTF_8));
    }
}
