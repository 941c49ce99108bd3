package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.HOST;
import static io.nvmf4j.target.TargetFixture.OTHER_HOST;
import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connect (NVMe-oF 1.1, 3.3) against the statuses and IATTR/IPO values Linux nvmet returns
 * (nvmet_execute_admin_connect(), nvmet_execute_io_connect(), nvmet_install_queue()). Status fields are written
 * the Linux way: {@code 0x4182} is CONNECT_INVALID_PARAM | DNR.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ConnectTest {

    private final TargetFixture fx = new TargetFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    private static int field(Request r) {
        return r.cqe().statusField();
    }

    @Test
    void aConnectThatTurnsSqFlowControlOffIsAnsweredWithSqhdFfffhAndTheHeadStaysThere() {
        LoopHost host = fx.host().connectAndEnable(SUBNQN);
        LoopHost.Queue q = host.openQueue();
        SubmissionQueueEntry connect = LoopHost.connectSqe(1, 31, 0);
        Wire.u8(connect.segment(), 46, 0x04); // CATTR bit 2: disable SQ flow control (TP 8005)
        Request r = host.submit(q, connect, host.connectData(host.cntlid, SUBNQN, host.hostNqn));
        assertEquals(0, field(r));
        assertEquals(0xFFFF, r.cqe().sqHead(), "nvmet_install_queue(): sq_head 0xffff says SQHD is not kept");
        assertTrue(q.sq().sqFlowControlDisabled());
        for (int i = 0; i < 3; i++) {
            Request flush = host.submit(q, SubmissionQueueEntry.allocate().opcode(0x00).nsid(1)); // Flush
            assertEquals(0, field(flush));
            assertEquals(0xFFFF, flush.cqe().sqHead(), "SQHD is not advanced without SQ flow control");
        }
        LoopHost.Queue plain = host.openQueue();
        Request other = host.submit(plain, LoopHost.connectSqe(2, 31, 0),
                host.connectData(host.cntlid, SUBNQN, host.hostNqn));
        assertEquals(1, other.cqe().sqHead(), "a queue whose Connect did not ask keeps SQ flow control");
        assertFalse(plain.sq().sqFlowControlDisabled());
    }

    @Test
    void adminConnectCreatesADynamicControllerAndReturnsItsId() {
        LoopHost host = fx.host();
        Request r = host.connectAdmin(SUBNQN, 5000);
        assertEquals(0, field(r));
        assertEquals(1, r.cqe().dw0(), "first controller ID of the range");
        assertEquals(0, r.cqe().sqId());
        assertEquals(1, r.cqe().sqHead(), "SQ head advanced past the Connect");
        assertEquals(r.sqe().cid(), r.cqe().cid());
        Controller c = host.controller();
        assertEquals(HOST, c.hostNqn());
        assertEquals(5, c.keepAliveTimeoutSeconds());
        assertEquals(1, host.admin.transport().responses.size());

        LoopHost second = fx.host();
        assertEquals(2, second.connectAdmin(SUBNQN, 0).cqe().dw0(), "next controller gets the next ID");
    }

    @Test
    void connectWithNonZeroRecordFormatIsIncompatibleFormat() {
        LoopHost host = fx.host();
        host.admin = host.openQueue();
        SubmissionQueueEntry sqe = LoopHost.connectSqe(0, 31, 0);
        Wire.u16(sqe.segment(), 40, 1);
        Request r = host.submit(host.admin, sqe, host.connectData(0xFFFF, SUBNQN, HOST));
        assertEquals(0x4180, field(r));
        assertNull(host.admin.sq().controller());
    }

    @Test
    void adminConnectNamingAControllerIdIsInvalidParameterInConnectData() {
        LoopHost host = fx.host();
        host.admin = host.openQueue();
        Request r = host.submit(host.admin, LoopHost.connectSqe(0, 31, 0), host.connectData(7, SUBNQN, HOST));
        assertEquals(0x4182, field(r));
        assertEquals(1 << 16 | 16, r.cqe().dw0(), "IATTR 1 (connect data), IPO 16 (CNTLID)");
    }

    @Test
    void unknownSubsystemIsInvalidParameterPointingAtSubnqn() {
        LoopHost host = fx.host();
        Request r = host.connectAdmin("nqn.2026-12.io.nvmf4j:nope", 0);
        assertEquals(0x4182, field(r));
        assertEquals(1 << 16 | 256, r.cqe().dw0(), "IATTR 1, IPO 256 (SUBNQN)");
    }

    @Test
    void hostNotOnTheAllowListIsInvalidHostPointingAtHostnqn() {
        LoopHost stranger = fx.host(OTHER_HOST);
        Request r = stranger.connectAdmin(SUBNQN, 0);
        assertEquals(0x4184, field(r));
        assertEquals(1 << 16 | 512, r.cqe().dw0(), "IATTR 1, IPO 512 (HOSTNQN)");
        assertTrue(fx.subsystem.controllers().isEmpty());

        fx.subsystem.allowAnyHost(true);
        assertEquals(0, field(fx.host(OTHER_HOST).connectAdmin(SUBNQN, 0)));
    }

    /**
     * SPDK's initiator tools send an empty HOSTNQN (first byte NUL) when the user names none. Linux nvmet compares
     * it with strcmp (nvmet_host_allowed()): a subsystem that allows any host takes it, admin and I/O queues alike.
     */
    @Test
    void emptyHostNqnConnectsWhereAnyHostIsAllowedLikeNvmet() {
        fx.subsystem.allowAnyHost(true);
        LoopHost anonymous = fx.host("");
        anonymous.connectAndEnable(SUBNQN);
        assertEquals("", anonymous.controller().hostNqn());
        Request io = anonymous.connectIo(SUBNQN, 1, 31);
        assertEquals(0, field(io), "I/O queue of the same (empty) host NQN");
    }

    /** ... and where hosts are listed, the empty name is not one of them: Connect Invalid Host, IPO at HOSTNQN. */
    @Test
    void emptyHostNqnIsAnInvalidHostWhereHostsAreListed() {
        Request r = fx.host("").connectAdmin(SUBNQN, 0);
        assertEquals(0x4184, field(r));
        assertEquals(1 << 16 | 512, r.cqe().dw0(), "IATTR 1, IPO 512 (HOSTNQN)");
        assertTrue(r.refusal().contains("rejected host \"\" (empty)"), r.refusal());
        assertTrue(fx.subsystem.controllers().isEmpty());
    }

    /**
     * A HOSTNQN without its NUL within the 256 bytes stays refused, as an invalid parameter of the Connect data
     * (SPDK nvmf_ctrlr_cmd_connect(): "Connect HOSTNQN is not null terminated").
     */
    @Test
    void unterminatedHostNqnIsRefusedEvenWhereAnyHostIsAllowed() {
        fx.subsystem.allowAnyHost(true);
        LoopHost host = fx.host();
        host.admin = host.openQueue();
        MemorySegment data = host.connectData(0xFFFF, SUBNQN, HOST);
        data.asSlice(512, 256).fill((byte) 'a');
        Request r = host.submit(host.admin, LoopHost.connectSqe(0, 31, 0), data);
        assertEquals(0x4182, field(r), "CONNECT_INVALID_PARAM | DNR");
        assertEquals(1 << 16 | 512, r.cqe().dw0());
        assertTrue(fx.subsystem.controllers().isEmpty());
    }

    @Test
    void ioConnectForUnknownControllerIsInvalidParameterPointingAtCntlid() {
        LoopHost host = fx.host();
        host.connectAndEnable(SUBNQN);
        host.cntlid = 42;
        Request r = host.connectIo(SUBNQN, 1, 31);
        assertEquals(0x4182, field(r));
        assertEquals(1 << 16 | 16, r.cqe().dw0());
    }

    @Test
    void ioConnectFromAnotherHostForTheSameControllerIsRefused() {
        LoopHost host = fx.host();
        host.connectAndEnable(SUBNQN);
        fx.subsystem.allowHost(OTHER_HOST);
        LoopHost other = fx.host(OTHER_HOST);
        other.cntlid = host.cntlid;
        Request r = other.connectIo(SUBNQN, 1, 31);
        assertEquals(0x4182, field(r), "hostnqn mismatch: controller not found");
        assertEquals(1 << 16 | 16, r.cqe().dw0());
    }

    /**
     * F11: NQN and controller ID are not secrets (the discovery log names the subsystem, CNTLIDs count up). An I/O
     * queue attaches only to a controller created by the same host: the Host Identifier of its Connect data must be
     * the admin Connect's (NVMe-oF 1.1, 3.3: "the Host Identifier ... shall be the same for all queues of the
     * association"), else Connect Invalid Parameters pointing at HOSTID in the data.
     */
    @Test
    void ioConnectWithTheRightNqnAndCntlidButAnotherHostIdentifierIsRefused() {
        LoopHost host = fx.host();
        host.connectAndEnable(SUBNQN);
        LoopHost intruder = fx.host();
        intruder.cntlid = host.cntlid;
        intruder.hostId[0] ^= 0x55;
        Request r = intruder.connectIo(SUBNQN, 1, 31);
        assertEquals(0x4182, field(r), "Connect Invalid Parameters, DNR");
        assertEquals(1 << 16 | 0, r.cqe().dw0(), "IATTR 1 (Connect data), IPO 0 (HOSTID)");
        assertNull(host.controller().queue(1), "nothing attached");
        assertEquals(0, field(host.connectIo(SUBNQN, 1, 31)), "the real host's I/O queue still connects");
    }

    /**
     * F11: an I/O queue must come from the peer address of its admin queue (the association's host); from
     * elsewhere the controller is "not found" for it, Connect Invalid Parameters pointing at CNTLID as nvmet's
     * nvmet_ctrl_find_get() failure does.
     */
    @Test
    void ioConnectFromAnotherPeerAddressThanTheAdminQueueIsRefused() {
        LoopHost host = fx.host();
        host.peerAddress = "192.0.2.1";
        host.connectAndEnable(SUBNQN);
        LoopHost elsewhere = fx.host();
        elsewhere.peerAddress = "192.0.2.99";
        elsewhere.cntlid = host.cntlid;
        Request r = elsewhere.connectIo(SUBNQN, 1, 31);
        assertEquals(0x4182, field(r));
        assertEquals(1 << 16 | 16, r.cqe().dw0(), "IATTR 1, IPO 16 (CNTLID)");
        assertNull(host.controller().queue(1));
        assertEquals(0, field(host.connectIo(SUBNQN, 1, 31)), "same address: connects");
    }

    @Test
    void ioConnectBeyondMaxQidIsInvalidParameterPointingAtQidInTheSqe() {
        TargetFixture small = new TargetFixture(Subsystem.builder(Nqn.parse(SUBNQN)).allowHost(HOST).maxIoQueues(2));
        try {
            LoopHost host = small.host();
            host.connectAndEnable(SUBNQN);
            assertEquals(0, field(host.connectIo(SUBNQN, 2, 31)));
            Request r = host.connectIo(SUBNQN, 3, 31);
            assertEquals(0x4182, field(r));
            assertEquals(42, r.cqe().dw0(), "IATTR 0 (SQE), IPO 42 (QID)");
        } finally {
            small.close();
        }
    }

    @Test
    void ioQueueLargerThanMqesIsInvalidParameterPointingAtSqsize() {
        LoopHost host = fx.host();
        host.connectAndEnable(SUBNQN);
        assertEquals(127, host.controller().mqes());
        assertEquals(0, field(host.connectIo(SUBNQN, 1, 127)), "SQSIZE = MQES is fine");
        Request r = host.connectIo(SUBNQN, 2, 128);
        assertEquals(0x4182, field(r));
        assertEquals(44, r.cqe().dw0(), "IATTR 0, IPO 44 (SQSIZE)");
        Request zero = host.connectIo(SUBNQN, 3, 0);
        assertEquals(0x4182, field(zero));
        assertEquals(44, zero.cqe().dw0());
    }

    @Test
    void secondConnectForAnExistingQueueIdIsACommandSequenceError() {
        LoopHost host = fx.host();
        host.connectAndEnable(SUBNQN);
        assertEquals(0, field(host.connectIo(SUBNQN, 1, 31)));
        Request again = host.connectIo(SUBNQN, 1, 31);
        assertEquals(0x400C, field(again), "nvmet: CMD_SEQ_ERROR | DNR");
        assertEquals(host.cntlid, again.cqe().dw0(), "nvmet passes back the controller ID");
    }

    @Test
    void connectOnAnAlreadyConnectedQueueIsAnInvalidOpcodeLoggedWithMore() {
        LoopHost host = fx.host();
        host.connectAndEnable(SUBNQN);
        Request r = host.submit(host.admin, LoopHost.connectSqe(0, 31, 0), host.connectData(0xFFFF, SUBNQN, HOST));
        // nvmet parses it with nvmet_parse_fabrics_admin_cmd(): unknown fctype, error_loc = fctype, More set
        assertEquals(0x6001, field(r));
        assertEquals(1, host.controller().errorLog().errorCount());
    }

    @Test
    void exhaustedControllerIdRangeIsControllerBusyAndAFreedIdIsReused() {
        TargetFixture one = new TargetFixture(Subsystem.builder(Nqn.parse(SUBNQN)).allowAnyHost(true)
                .controllerIdRange(5, 5));
        try {
            LoopHost a = one.host();
            assertEquals(5, a.connectAdmin(SUBNQN, 0).cqe().dw0());
            Request busy = one.host().connectAdmin(SUBNQN, 0);
            assertEquals(0x4181, field(busy));
            a.admin.sq().destroy();
            assertTrue(a.controller().isReleased());
            assertEquals(5, one.host().connectAdmin(SUBNQN, 0).cqe().dw0());
        } finally {
            one.close();
        }
    }

    @Test
    void commandsOtherThanConnectOnAnUnconnectedQueueAreInvalidOpcodes() {
        LoopHost host = fx.host();
        LoopHost.Queue q = host.openQueue();
        SubmissionQueueEntry identify = SubmissionQueueEntry.allocate();
        IdentifyCommand.create(identify, IdentifyCommand.CNS_CONTROLLER, 0);
        Request r = host.submit(q, identify, host.buffer(4096));
        assertEquals(0x4001, field(r), "no controller yet: no error log, no More");
        Request prop = host.submit(q, LoopHost.propertyGet(0, true));
        assertEquals(0x4001, field(prop));
        assertFalse(q.transport().responses.isEmpty());
    }

    @Test
    void connectDataOfTheWrongLengthIsDataSglLengthInvalid() {
        LoopHost host = fx.host();
        host.admin = host.openQueue();
        Request r = host.submit(host.admin, LoopHost.connectSqe(0, 31, 0),
                host.connectData(0xFFFF, SUBNQN, HOST).asSlice(0, 512));
        assertEquals(0x400F, field(r));
    }

    @Test
    void connectPreparesAHostToControllerTransferOf1024Bytes() {
        LoopHost host = fx.host();
        LoopHost.Queue q = host.openQueue();
        SubmissionQueueEntry sqe = LoopHost.connectSqe(0, 31, 0);
        sqe.psdt(1);
        Request r = new Request().reset(sqe);
        assertTrue(q.sq().prepare(r));
        assertEquals(DataDirection.HOST_TO_CONTROLLER, r.dataDirection());
        assertEquals(1024, r.expectedDataLength());
        r.data(host.connectData(0xFFFF, SUBNQN, HOST));
        q.sq().execute(r);
        assertEquals(0, field(r));
    }

    @Test
    void destroyingEveryQueueReleasesTheController() {
        LoopHost host = fx.host();
        host.connectAndEnable(SUBNQN);
        host.connectIo(SUBNQN, 1, 31);
        Controller c = host.controller();
        host.admin.sq().destroy();
        assertFalse(c.isReleased(), "an I/O queue still holds it");
        host.ioQueues.get(1).sq().destroy();
        assertTrue(c.isReleased());
        assertNull(fx.subsystem.controller(c.id()));
    }
}
