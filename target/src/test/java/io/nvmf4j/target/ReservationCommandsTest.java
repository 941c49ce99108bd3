package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.AsyncEventRequestCommand;
import io.nvmf4j.protocol.admin.FeatureId;
import io.nvmf4j.protocol.admin.GetFeaturesCommand;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.admin.SetFeaturesCommand;
import io.nvmf4j.protocol.io.ReadCommand;
import io.nvmf4j.protocol.io.ReservationCommands;
import io.nvmf4j.protocol.io.ReservationKeys;
import io.nvmf4j.protocol.io.ReservationStatus;
import io.nvmf4j.protocol.io.ReservationType;
import io.nvmf4j.protocol.io.WriteCommand;
import io.nvmf4j.protocol.log.ReservationNotificationLog;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two hosts (distinct host identifiers, as two Linux hosts with their own /etc/nvme/hostid) share namespace 1
 * through the loop transport and use the reservation commands as {@code nvme resv-register / resv-acquire /
 * resv-report / resv-release} send them; I/O that conflicts completes with Reservation Conflict (SCT 0, SC 83h).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReservationCommandsTest {

    static final int RESERVATION_CONFLICT = 0x083;

    @TempDir
    Path dir;

    TargetFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    LoopHost connect(String hostNqn, int hostIdSeed) {
        LoopHost h = fx.host(hostNqn);
        for (int i = 0; i < 16; i++) {
            h.hostId[i] = (byte) (hostIdSeed == 0 ? 0 : hostIdSeed + i);
        }
        h.connectAndEnable(SUBNQN);
        assertEquals(0, h.connectIo(SUBNQN, 1, 31).cqe().statusField());
        return h;
    }

    static int sc(Request r) {
        return r.cqe().statusField() & 0x7FF; // SCT and SC
    }

    Request register(LoopHost h, int action, boolean iekey, int cptpl, long crkey, long nrkey) {
        SubmissionQueueEntry sqe = ReservationCommands.createRegister(SubmissionQueueEntry.allocate(), 1, action,
                iekey, cptpl);
        MemorySegment data = h.buffer(16);
        new ReservationKeys(crkey, nrkey).encode(data);
        return h.submit(h.ioQueues.get(1), sqe, data);
    }

    Request acquire(LoopHost h, int action, ReservationType type, long crkey, long prkey) {
        SubmissionQueueEntry sqe = ReservationCommands.createAcquire(SubmissionQueueEntry.allocate(), 1, action,
                false, type.code());
        MemorySegment data = h.buffer(16);
        new ReservationKeys(crkey, prkey).encode(data);
        return h.submit(h.ioQueues.get(1), sqe, data);
    }

    /** As libnvme's nvme_resv_release(): 8 bytes of data. */
    Request release(LoopHost h, int action, ReservationType type, long crkey) {
        SubmissionQueueEntry sqe = ReservationCommands.createRelease(SubmissionQueueEntry.allocate(), 1, action,
                false, type == null ? 0 : type.code());
        MemorySegment data = h.buffer(8);
        new ReservationKeys(crkey, 0).encodeRelease(data);
        return h.submit(h.ioQueues.get(1), sqe, data);
    }

    ReservationStatus report(LoopHost h) {
        MemorySegment data = h.buffer(4096);
        Request r = h.submit(h.ioQueues.get(1),
                ReservationCommands.createReport(SubmissionQueueEntry.allocate(), 1, 4096, true), data);
        assertEquals(0, r.cqe().statusField());
        return ReservationStatus.decode(data, true);
    }

    Request write(LoopHost h) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        WriteCommand.create(sqe, 1, 0, 1);
        return h.submit(h.ioQueues.get(1), sqe, h.buffer(512));
    }

    Request read(LoopHost h) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        ReadCommand.create(sqe, 1, 0, 1);
        return h.submit(h.ioQueues.get(1), sqe, h.buffer(512));
    }

    Request asyncEventRequest(LoopHost h) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        AsyncEventRequestCommand.create(sqe);
        return h.submit(h.admin, sqe);
    }

    ReservationNotificationLog notificationLog(LoopHost h) {
        MemorySegment data = h.buffer(64);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetLogPageCommand.create(sqe, 0x80, 0xFFFF_FFFFL, 64);
        assertEquals(0, h.submit(h.admin, sqe, data).cqe().statusField());
        return ReservationNotificationLog.decode(data);
    }

    @Test
    void twoHostsRegisterOneReservesTheOtherConflictsOnWritesUntilRelease() {
        fx = new TargetFixture(io.nvmf4j.target.Subsystem.builder(Nqn.parse(SUBNQN)).allowAnyHost(true));
        LoopHost a = connect(TargetFixture.HOST, 0x10);
        LoopHost b = connect(TargetFixture.OTHER_HOST, 0x40);

        assertEquals(0, register(a, ReservationCommands.REGISTER_ACTION_REGISTER, false, 0, 0, 0xAAAA)
                .cqe().statusField());
        assertEquals(0, acquire(a, ReservationCommands.ACQUIRE_ACTION_ACQUIRE, ReservationType.WRITE_EXCLUSIVE,
                0xAAAA, 0).cqe().statusField());
        // B is no registrant: Write Exclusive lets it read, not write
        assertEquals(0, read(b).cqe().statusField());
        Request w = write(b);
        assertEquals(RESERVATION_CONFLICT, sc(w));
        assertTrue(w.status().dnr());
        assertEquals(0, write(a).cqe().statusField(), "the holder writes");
        // B cannot acquire without registering, and conflicts on acquire once registered
        assertEquals(RESERVATION_CONFLICT, sc(acquire(b, 0, ReservationType.WRITE_EXCLUSIVE, 0xBBBB, 0)));
        assertEquals(0, register(b, 0, false, 0, 0, 0xBBBB).cqe().statusField());
        assertEquals(RESERVATION_CONFLICT, sc(acquire(b, 0, ReservationType.WRITE_EXCLUSIVE, 0xBBBB, 0)));

        ReservationStatus st = report(b);
        assertEquals(2, st.generation(), "two registrations");
        assertEquals(ReservationType.WRITE_EXCLUSIVE.code(), st.rtype());
        assertEquals(2, st.registeredControllers());
        assertArrayEquals(a.hostId, st.controllers().get(0).hostId());
        assertTrue(st.controllers().get(0).holdsReservation());
        assertEquals(a.cntlid, st.controllers().get(0).cntlid());
        assertEquals(0xAAAA, st.controllers().get(0).rkey());
        assertFalse(st.controllers().get(1).holdsReservation());

        assertEquals(0, release(a, ReservationCommands.RELEASE_ACTION_RELEASE, ReservationType.WRITE_EXCLUSIVE,
                0xAAAA).cqe().statusField());
        assertEquals(0, write(b).cqe().statusField(), "released: B writes again");
        assertEquals(0, report(b).rtype());
    }

    @Test
    void preemptNotifiesThePreemptedHostThroughItsLogAndAnEvent() {
        fx = new TargetFixture(io.nvmf4j.target.Subsystem.builder(Nqn.parse(SUBNQN)).allowAnyHost(true));
        LoopHost a = connect(TargetFixture.HOST, 0x10);
        LoopHost b = connect(TargetFixture.OTHER_HOST, 0x40);
        register(a, 0, false, 0, 0, 1);
        register(b, 0, false, 0, 0, 2);
        acquire(b, 0, ReservationType.EXCLUSIVE_ACCESS, 2, 0);
        assertEquals(RESERVATION_CONFLICT, sc(read(a)), "Exclusive Access: A cannot even read");

        Request aer = asyncEventRequest(b);
        assertFalse(aer.isCompleted());
        assertEquals(0, acquire(a, ReservationCommands.ACQUIRE_ACTION_PREEMPT_AND_ABORT,
                ReservationType.EXCLUSIVE_ACCESS, 1, 2).cqe().statusField());
        assertTrue(aer.isCompleted(), "B hears of it");
        assertEquals(0x0080_0006, aer.cqe().dw0(), "I/O command set event, reservation log page available, LID 80h");
        ReservationNotificationLog page = notificationLog(b);
        assertEquals(ReservationNotificationLog.TYPE_REGISTRATION_PREEMPTED, page.type());
        assertEquals(1, page.nsid());
        assertEquals(1, page.count());
        assertEquals(ReservationNotificationLog.EMPTY, notificationLog(b), "read once");
        assertEquals(RESERVATION_CONFLICT, sc(read(b)), "B lost its registration and access");
        assertEquals(0, read(a).cqe().statusField());
    }

    @Test
    void reportNeedsTheExtendedStructureAndAHeader() {
        fx = new TargetFixture();
        LoopHost a = connect(TargetFixture.HOST, 0x10);
        Request noEds = a.submit(a.ioQueues.get(1),
                ReservationCommands.createReport(SubmissionQueueEntry.allocate(), 1, 4096, false), a.buffer(4096));
        assertEquals(0x018, sc(noEds), "Host Identifier Inconsistent Format: the ids are 128 bits");
        Request tooShort = a.submit(a.ioQueues.get(1),
                ReservationCommands.createReport(SubmissionQueueEntry.allocate(), 1, 32, true), a.buffer(32));
        assertEquals(0x002, sc(tooShort));
        SubmissionQueueEntry huge = ReservationCommands.createReport(SubmissionQueueEntry.allocate(), 1, 4, true);
        huge.cdw(10, -1); // 16 GiB: refused before any buffer is taken
        assertEquals(0x002, sc(a.submit(a.ioQueues.get(1), huge, MemorySegment.NULL)));
    }

    @Test
    void aHostWithoutAHostIdentifierCannotRegister() {
        fx = new TargetFixture();
        LoopHost zero = connect(TargetFixture.HOST, 0);
        assertEquals(0x00C, sc(register(zero, 0, false, 0, 0, 5)), "Command Sequence Error");
        assertEquals(0, report(zero).registeredControllers());
    }

    @Test
    void identifyAdvertisesReservationsAndFeaturesWork() {
        fx = new TargetFixture();
        LoopHost a = connect(TargetFixture.HOST, 0x10);
        MemorySegment id = a.buffer(4096);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        IdentifyCommand.create(sqe, IdentifyCommand.CNS_CONTROLLER, 0);
        assertEquals(0, a.submit(a.admin, sqe, id).cqe().statusField());
        assertEquals(1 << 5, IdentifyController.wrap(id).oncs() & 1 << 5, "ONCS bit 5: reservations");
        IdentifyCommand.create(sqe, IdentifyCommand.CNS_NAMESPACE, 1);
        assertEquals(0, a.submit(a.admin, sqe, id).cqe().statusField());
        assertEquals(0xFE, IdentifyNamespace.wrap(id).rescap(), "six types and IEKEY; no PTPL without a file");

        SubmissionQueueEntry set = SubmissionQueueEntry.allocate();
        SetFeaturesCommand.create(set, FeatureId.RESERVATION_NOTIFICATION_MASK, 0b1110).sqe().nsid(1);
        assertEquals(0, a.submit(a.admin, set).cqe().statusField());
        SetFeaturesCommand.create(set, FeatureId.RESERVATION_NOTIFICATION_MASK, 1).sqe().nsid(1);
        assertEquals(0x002, sc(a.submit(a.admin, set)), "bit 0 is reserved");
        SubmissionQueueEntry get = SubmissionQueueEntry.allocate();
        GetFeaturesCommand.create(get, FeatureId.RESERVATION_NOTIFICATION_MASK).sqe().nsid(1);
        Request r = a.submit(a.admin, get);
        assertEquals(0, r.cqe().statusField());
        assertEquals(0b1110, r.cqe().dw0());
        SetFeaturesCommand.create(set, FeatureId.RESERVATION_PERSISTENCE, 1).sqe().nsid(1);
        assertEquals(0x002, sc(a.submit(a.admin, set)), "no PTPL file: cannot persist");
    }

    @Test
    void persistThroughPowerLossKeepsTheReservationAcrossATargetRestart() throws Exception {
        fx = new TargetFixture(io.nvmf4j.target.Subsystem.builder(Nqn.parse(SUBNQN)).allowAnyHost(true));
        fx.target.persistReservationsIn(dir);
        LoopHost a = connect(TargetFixture.HOST, 0x10);
        MemorySegment id = a.buffer(4096);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        IdentifyCommand.create(sqe, IdentifyCommand.CNS_NAMESPACE, 1);
        a.submit(a.admin, sqe, id);
        assertEquals(0xFF, IdentifyNamespace.wrap(id).rescap(), "RESCAP bit 0: PTPL");
        assertEquals(0, register(a, 0, false, ReservationCommands.CPTPL_PERSIST, 0, 0x77).cqe().statusField());
        assertEquals(0, acquire(a, 0, ReservationType.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY, 0x77, 0)
                .cqe().statusField());
        fx.close();

        // the daemon starts again over the same directory
        fx = new TargetFixture(io.nvmf4j.target.Subsystem.builder(Nqn.parse(SUBNQN)).allowAnyHost(true));
        fx.target.persistReservationsIn(dir);
        LoopHost other = connect(TargetFixture.OTHER_HOST, 0x40);
        assertEquals(RESERVATION_CONFLICT, sc(read(other)), "the reservation came back");
        ReservationStatus st = report(other);
        assertTrue(st.ptpls());
        assertEquals(ReservationType.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY.code(), st.rtype());
        assertEquals(1, st.registeredControllers());
        assertEquals(0x77, st.controllers().get(0).rkey());
        LoopHost again = connect(TargetFixture.HOST, 0x10);
        assertEquals(0, read(again).cqe().statusField(), "the same host id is the same registrant");
        SubmissionQueueEntry get = SubmissionQueueEntry.allocate();
        GetFeaturesCommand.create(get, FeatureId.RESERVATION_PERSISTENCE).sqe().nsid(1);
        Request r = again.submit(again.admin, get);
        assertEquals(1, r.cqe().dw0());
    }

    @Test
    void shortDataAndOddLengthsAreStatusesNotCrashes() {
        fx = new TargetFixture();
        LoopHost a = connect(TargetFixture.HOST, 0x10);
        // Register data is 16 bytes: an SGL of 8 is Data SGL Length Invalid
        SubmissionQueueEntry reg = ReservationCommands.createRegister(SubmissionQueueEntry.allocate(), 1, 0, false, 0);
        assertEquals(0x00F, sc(a.submit(a.ioQueues.get(1), reg, a.buffer(8))));
        // reserved actions and types
        SubmissionQueueEntry acq = ReservationCommands.createAcquire(SubmissionQueueEntry.allocate(), 1, 7, false, 1);
        assertEquals(0, register(a, 0, false, 0, 0, 5).cqe().statusField());
        MemorySegment keys = a.buffer(16);
        new ReservationKeys(5, 0).encode(keys);
        assertEquals(0x002, sc(a.submit(a.ioQueues.get(1), acq, keys)));
        SubmissionQueueEntry rel = ReservationCommands.createRelease(SubmissionQueueEntry.allocate(), 1, 0, false, 0);
        assertEquals(0, a.submit(a.ioQueues.get(1), rel, keys).cqe().statusField(), "nothing held: nothing to do");
        // the notification log read in a 4-byte piece: the first 4 bytes of the 64
        MemorySegment part = a.buffer(4);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetLogPageCommand.create(sqe, 0x80, 0xFFFF_FFFFL, 4);
        assertEquals(0, a.submit(a.admin, sqe, part).cqe().statusField());
        // an unknown namespace
        SubmissionQueueEntry other = ReservationCommands.createRegister(SubmissionQueueEntry.allocate(), 9, 0, false, 0);
        assertEquals(0x00B, sc(a.submit(a.ioQueues.get(1), other, keys)));
    }
}
