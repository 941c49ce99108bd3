package io.nvmf4j.target.reservation;

import static io.nvmf4j.protocol.io.ReservationCommands.ACQUIRE_ACTION_ACQUIRE;
import static io.nvmf4j.protocol.io.ReservationCommands.ACQUIRE_ACTION_PREEMPT;
import static io.nvmf4j.protocol.io.ReservationCommands.ACQUIRE_ACTION_PREEMPT_AND_ABORT;
import static io.nvmf4j.protocol.io.ReservationCommands.CPTPL_CLEAR;
import static io.nvmf4j.protocol.io.ReservationCommands.CPTPL_NO_CHANGE;
import static io.nvmf4j.protocol.io.ReservationCommands.CPTPL_PERSIST;
import static io.nvmf4j.protocol.io.ReservationCommands.REGISTER_ACTION_REGISTER;
import static io.nvmf4j.protocol.io.ReservationCommands.REGISTER_ACTION_REPLACE;
import static io.nvmf4j.protocol.io.ReservationCommands.REGISTER_ACTION_UNREGISTER;
import static io.nvmf4j.protocol.io.ReservationCommands.RELEASE_ACTION_CLEAR;
import static io.nvmf4j.protocol.io.ReservationCommands.RELEASE_ACTION_RELEASE;
import static io.nvmf4j.protocol.log.ReservationNotificationLog.TYPE_REGISTRATION_PREEMPTED;
import static io.nvmf4j.protocol.log.ReservationNotificationLog.TYPE_RESERVATION_PREEMPTED;
import static io.nvmf4j.protocol.log.ReservationNotificationLog.TYPE_RESERVATION_RELEASED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.io.ReservationType;
import io.nvmf4j.protocol.log.ReservationNotificationLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The reservation state machine of one namespace, host by host, as NVMe Base 2.0, 8.19 and nvmet's pr.c say. */
class ReservationStateTest {

    static final HostId A = new HostId(0xA, 1);
    static final HostId B = new HostId(0xB, 2);
    static final HostId C = new HostId(0xC, 3);
    static final Status CONFLICT = StatusCode.RESERVATION_CONFLICT.withDnr();
    static final Status INVALID_FIELD = StatusCode.INVALID_FIELD.withDnr();

    @TempDir
    Path dir;

    final ReservationState st = new ReservationState();
    final List<ReservationNotice> notices = new ArrayList<>();

    Status register(HostId h, long key) {
        return st.register(h, 1, REGISTER_ACTION_REGISTER, false, CPTPL_NO_CHANGE, 0, key, notices);
    }

    Status acquire(HostId h, long key, ReservationType t) {
        return st.acquire(h, ACQUIRE_ACTION_ACQUIRE, t.code(), false, key, 0, notices);
    }

    enum Role { HOLDER, REGISTRANT, NON_REGISTRANT }

    /**
     * NVMe Base 2.0, Figure 530 "Command Behavior in the Presence of a Reservation": for each type, what a read
     * (Read) and a write (Write, Write Zeroes, Dataset Management, Flush) of the holder, of another registrant and
     * of a non-registrant do. A = allowed, C = Reservation Conflict.
     */
    static Stream<Arguments> accessTable() {
        String[][] table = {
            // type                                  holder R/W  registrant R/W  non-registrant R/W
            {"WRITE_EXCLUSIVE",                      "A", "A",   "A", "C",       "A", "C"},
            {"EXCLUSIVE_ACCESS",                     "A", "A",   "C", "C",       "C", "C"},
            {"WRITE_EXCLUSIVE_REGISTRANTS_ONLY",     "A", "A",   "A", "A",       "A", "C"},
            {"EXCLUSIVE_ACCESS_REGISTRANTS_ONLY",    "A", "A",   "A", "A",       "C", "C"},
            {"WRITE_EXCLUSIVE_ALL_REGISTRANTS",      "A", "A",   "A", "A",       "A", "C"},
            {"EXCLUSIVE_ACCESS_ALL_REGISTRANTS",     "A", "A",   "A", "A",       "C", "C"},
        };
        List<Arguments> out = new ArrayList<>();
        for (String[] row : table) {
            ReservationType type = ReservationType.valueOf(row[0]);
            Role[] roles = Role.values();
            for (int r = 0; r < 3; r++) {
                out.add(Arguments.of(type, roles[r], "read", row[1 + 2 * r].equals("A") ? "allowed" : "conflict"));
                out.add(Arguments.of(type, roles[r], "write", row[2 + 2 * r].equals("A") ? "allowed" : "conflict"));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}: {1} {2} -> {3}")
    @MethodSource("accessTable")
    void accessRules(ReservationType type, Role role, String operation, String outcome) {
        boolean write = operation.equals("write");
        boolean allowed = outcome.equals("allowed");
        assertEquals(Status.SUCCESS, register(A, 1));
        assertEquals(Status.SUCCESS, register(B, 2));
        assertEquals(Status.SUCCESS, acquire(A, 1, type));
        HostId who = switch (role) {
            case HOLDER -> A;
            case REGISTRANT -> B;
            case NON_REGISTRANT -> C;
        };
        assertEquals(allowed, st.allows(who.high(), who.low(), write));
    }

    @Test
    void withoutAReservationEverybodyHasAccess() {
        assertTrue(st.allows(C.high(), C.low(), true));
        register(A, 1);
        assertTrue(st.allows(C.high(), C.low(), true), "registering alone reserves nothing");
    }

    @Test
    void registerUnregisterReplaceAndTheGeneration() {
        assertEquals(0, st.snapshot().generation());
        assertEquals(Status.SUCCESS, register(A, 0x11));
        assertEquals(Status.SUCCESS, register(A, 0x11), "the same key again is no error");
        assertEquals(CONFLICT, register(A, 0x12), "another key while registered");
        assertEquals(2, st.snapshot().generation(), "every successful Register counts");
        // replace needs the current key unless IEKEY
        assertEquals(CONFLICT, st.register(A, 1, REGISTER_ACTION_REPLACE, false, 0, 0x99, 0x22, notices));
        assertEquals(Status.SUCCESS, st.register(A, 1, REGISTER_ACTION_REPLACE, false, 0, 0x11, 0x22, notices));
        assertEquals(Status.SUCCESS, st.register(A, 1, REGISTER_ACTION_REPLACE, true, 0, 0x99, 0x33, notices));
        assertEquals(0x33, st.snapshot().registrants().get(0).key());
        assertEquals(CONFLICT, st.register(B, 2, REGISTER_ACTION_REPLACE, true, 0, 0, 0x44, notices),
                "replace by a host that is not registered");
        assertEquals(CONFLICT, st.register(A, 1, REGISTER_ACTION_UNREGISTER, false, 0, 0x11, 0, notices));
        assertEquals(Status.SUCCESS, st.register(A, 1, REGISTER_ACTION_UNREGISTER, true, 0, 0, 0, notices));
        assertTrue(st.snapshot().registrants().isEmpty());
        assertEquals(5, st.snapshot().generation());
        assertEquals(INVALID_FIELD, st.register(A, 1, 5, false, 0, 0, 1, notices), "reserved action");
        assertEquals(INVALID_FIELD, st.register(A, 1, REGISTER_ACTION_REGISTER, false, 1, 0, 1, notices),
                "CPTPL 01b is reserved");
        assertEquals(INVALID_FIELD, st.register(A, 1, REGISTER_ACTION_REGISTER, false, CPTPL_PERSIST, 0, 1, notices),
                "no PTPL file: cannot persist");
    }

    @Test
    void acquireNeedsTheKeyAndConflictsWithAnotherHolder() {
        register(A, 1);
        register(B, 2);
        assertEquals(CONFLICT, acquire(A, 9, ReservationType.WRITE_EXCLUSIVE), "wrong key");
        assertEquals(CONFLICT, acquire(C, 0, ReservationType.WRITE_EXCLUSIVE), "not a registrant");
        assertEquals(INVALID_FIELD, st.acquire(A, ACQUIRE_ACTION_ACQUIRE, 7, false, 1, 0, notices), "type 7");
        assertEquals(INVALID_FIELD, st.acquire(A, ACQUIRE_ACTION_ACQUIRE, 1, true, 1, 0, notices), "IEKEY");
        assertEquals(Status.SUCCESS, acquire(A, 1, ReservationType.WRITE_EXCLUSIVE));
        assertEquals(Status.SUCCESS, acquire(A, 1, ReservationType.WRITE_EXCLUSIVE), "again, same type");
        assertEquals(CONFLICT, acquire(A, 1, ReservationType.EXCLUSIVE_ACCESS), "holder, other type");
        assertEquals(CONFLICT, acquire(B, 2, ReservationType.WRITE_EXCLUSIVE), "another holder");
        assertEquals(0, st.snapshot().generation() - 2, "acquire does not count");
    }

    @Test
    void preemptTakesTheReservationAndUnregistersThePreempted() {
        register(A, 1);
        register(B, 2);
        register(C, 2);
        acquire(B, 2, ReservationType.WRITE_EXCLUSIVE);
        long gen = st.snapshot().generation();
        assertEquals(Status.SUCCESS, st.acquire(A, ACQUIRE_ACTION_PREEMPT,
                ReservationType.EXCLUSIVE_ACCESS.code(), false, 1, 2, notices));
        ReservationState.Snapshot s = st.snapshot();
        assertEquals(A, s.holder().host());
        assertEquals(ReservationType.EXCLUSIVE_ACCESS, s.type());
        assertEquals(List.of(A), s.registrants().stream().map(Registrant::host).toList(),
                "every registrant with the holder's key goes");
        assertEquals(gen + 1, s.generation(), "a preempt counts");
        assertTrue(notices.contains(new ReservationNotice(B, TYPE_REGISTRATION_PREEMPTED)));
        assertTrue(notices.contains(new ReservationNotice(C, TYPE_REGISTRATION_PREEMPTED)));
        assertFalse(st.allows(B.high(), B.low(), false), "B lost its access at once");
    }

    @Test
    void preemptAndAbortLeavesTheSameState() {
        register(A, 1);
        register(B, 2);
        acquire(B, 2, ReservationType.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY);
        assertEquals(Status.SUCCESS, st.acquire(A, ACQUIRE_ACTION_PREEMPT_AND_ABORT,
                ReservationType.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY.code(), false, 1, 2, notices));
        assertEquals(A, st.snapshot().holder().host());
        assertFalse(st.allows(B.high(), B.low(), false));
        assertEquals(List.of(new ReservationNotice(B, TYPE_REGISTRATION_PREEMPTED)), notices);
    }

    @Test
    void preemptWithoutAReservationUnregistersByKeyOrConflicts() {
        register(A, 1);
        register(B, 2);
        assertEquals(CONFLICT, st.acquire(A, ACQUIRE_ACTION_PREEMPT, 1, false, 1, 7, notices), "nobody has key 7");
        assertEquals(Status.SUCCESS, st.acquire(A, ACQUIRE_ACTION_PREEMPT, 1, false, 1, 2, notices));
        assertNull(st.snapshot().holder(), "no reservation is created");
        assertEquals(1, st.snapshot().registrants().size());
    }

    @Test
    void preemptOfAnAllRegistrantsReservationWithKeyZeroTakesItAlone() {
        register(A, 1);
        register(B, 2);
        register(C, 3);
        acquire(B, 2, ReservationType.WRITE_EXCLUSIVE_ALL_REGISTRANTS);
        assertEquals(Status.SUCCESS, st.acquire(A, ACQUIRE_ACTION_PREEMPT, ReservationType.WRITE_EXCLUSIVE.code(),
                false, 1, 0, notices));
        assertEquals(ReservationType.WRITE_EXCLUSIVE, st.snapshot().type());
        assertEquals(List.of(A), st.snapshot().registrants().stream().map(Registrant::host).toList());
        assertEquals(2, notices.size());
    }

    @Test
    void preemptOfASingleHolderWithKeyZeroIsAnInvalidField() {
        register(A, 1);
        register(B, 2);
        acquire(B, 2, ReservationType.WRITE_EXCLUSIVE);
        assertEquals(INVALID_FIELD, st.acquire(A, ACQUIRE_ACTION_PREEMPT, 1, false, 1, 0, notices));
    }

    @Test
    void releaseAndClear() {
        register(A, 1);
        register(B, 2);
        acquire(A, 1, ReservationType.WRITE_EXCLUSIVE_REGISTRANTS_ONLY);
        assertEquals(Status.SUCCESS, st.release(B, RELEASE_ACTION_RELEASE, 3, false, 2, notices),
                "a registrant that does not hold it: nothing happens");
        assertEquals(A, st.snapshot().holder().host());
        assertEquals(INVALID_FIELD, st.release(A, RELEASE_ACTION_RELEASE, 1, false, 1, notices), "other type");
        assertEquals(CONFLICT, st.release(A, RELEASE_ACTION_RELEASE, 3, false, 9, notices), "wrong key");
        long gen = st.snapshot().generation();
        assertEquals(Status.SUCCESS, st.release(A, RELEASE_ACTION_RELEASE, 3, false, 1, notices));
        assertNull(st.snapshot().type());
        assertEquals(gen, st.snapshot().generation(), "release does not count");
        assertEquals(List.of(new ReservationNotice(B, TYPE_RESERVATION_RELEASED)), notices);
        notices.clear();
        acquire(A, 1, ReservationType.WRITE_EXCLUSIVE);
        assertEquals(Status.SUCCESS, st.release(A, RELEASE_ACTION_CLEAR, 0, false, 1, notices));
        assertTrue(st.snapshot().registrants().isEmpty());
        assertNull(st.snapshot().holder());
        assertEquals(gen + 1, st.snapshot().generation(), "clear counts");
        assertEquals(List.of(new ReservationNotice(B, TYPE_RESERVATION_PREEMPTED)), notices);
    }

    @Test
    void theHolderUnregisteringReleasesOrPassesAnAllRegistrantsReservationOn() {
        register(A, 1);
        register(B, 2);
        acquire(A, 1, ReservationType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS);
        assertEquals(Status.SUCCESS, acquire(B, 2, ReservationType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS),
                "every registrant holds an All Registrants reservation");
        st.register(A, 1, REGISTER_ACTION_UNREGISTER, false, 0, 1, 0, notices);
        assertEquals(ReservationType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS, st.snapshot().type());
        assertEquals(B, st.snapshot().holder().host());
        st.register(B, 2, REGISTER_ACTION_UNREGISTER, false, 0, 2, 0, notices);
        assertNull(st.snapshot().type(), "gone with the last registrant");

        register(A, 1);
        register(B, 2);
        acquire(A, 1, ReservationType.WRITE_EXCLUSIVE_REGISTRANTS_ONLY);
        notices.clear();
        st.register(A, 1, REGISTER_ACTION_UNREGISTER, false, 0, 1, 0, notices);
        assertNull(st.snapshot().type());
        assertEquals(List.of(new ReservationNotice(B, TYPE_RESERVATION_RELEASED)), notices);
    }

    @Test
    void theNotificationMaskSilencesNotices() {
        st.notifyMask(1 << TYPE_REGISTRATION_PREEMPTED);
        register(A, 1);
        register(B, 2);
        st.acquire(A, ACQUIRE_ACTION_PREEMPT, 1, false, 1, 2, notices);
        assertTrue(notices.isEmpty());
        assertThrows(IllegalArgumentException.class, () -> st.notifyMask(1));
    }

    @Test
    void registrantsAreBounded() {
        for (int i = 0; i < ReservationState.MAX_REGISTRANTS; i++) {
            assertEquals(Status.SUCCESS, register(new HostId(7, i + 1), 1));
        }
        assertEquals(StatusCode.INTERNAL.withDnr(), register(new HostId(8, 1), 1));
    }

    @Test
    void persistThroughPowerLossSurvivesARestart() throws IOException {
        Path file = dir.resolve("ns1.resv");
        st.persistIn(file);
        assertTrue(st.ptplCapable());
        assertEquals(Status.SUCCESS, st.register(A, 3, REGISTER_ACTION_REGISTER, false, CPTPL_PERSIST, 0,
                0xFFFF_0000_0000_0001L, notices));
        register(B, 2);
        acquire(A, 0xFFFF_0000_0000_0001L, ReservationType.EXCLUSIVE_ACCESS);
        assertFalse(Files.exists(dir.resolve("ns1.resv.tmp")), "the temporary file was renamed");

        ReservationState after = new ReservationState(); // a new target process
        after.persistIn(file);
        ReservationState.Snapshot s = after.snapshot();
        assertTrue(s.ptpl());
        assertEquals(ReservationType.EXCLUSIVE_ACCESS, s.type());
        assertEquals(A, s.holder().host());
        assertEquals(3, s.holder().cntlid());
        assertEquals(0xFFFF_0000_0000_0001L, s.holder().key());
        assertEquals(List.of(A, B), s.registrants().stream().map(Registrant::host).toList());
        assertEquals(st.snapshot().generation(), s.generation());
        assertFalse(after.allows(C.high(), C.low(), false), "the reservation is in force again");

        // PTPL cleared: the file says so and the next start has no registrations
        assertEquals(Status.SUCCESS, after.register(A, 3, REGISTER_ACTION_REGISTER, false, CPTPL_CLEAR, 0,
                0xFFFF_0000_0000_0001L, notices));
        ReservationState third = new ReservationState();
        third.persistIn(file);
        assertTrue(third.snapshot().registrants().isEmpty());
        assertFalse(third.snapshot().ptpl());
    }

    @Test
    void aCorruptStateFileIsAnErrorNamingTheLine() throws IOException {
        Path file = dir.resolve("bad.resv");
        Files.writeString(file, "nvmf4j-reservations 1\nptpl 1\nregistrant zz 1 1\n");
        IOException e = assertThrows(IOException.class, () -> new ReservationState().persistIn(file));
        assertTrue(e.getMessage().contains("line 3"), e.getMessage());
        Files.writeString(file, "something else\n");
        assertThrows(IOException.class, () -> new ReservationState().persistIn(file));
    }

    @Test
    void theNotificationLogCountsAndReportsLostEntries() {
        ReservationLog log = new ReservationLog();
        assertEquals(ReservationNotificationLog.EMPTY, log.take());
        log.add(TYPE_RESERVATION_RELEASED, 1);
        log.add(TYPE_REGISTRATION_PREEMPTED, 2);
        assertEquals(new ReservationNotificationLog(1, TYPE_RESERVATION_RELEASED, 1, 1), log.take());
        assertEquals(new ReservationNotificationLog(2, TYPE_REGISTRATION_PREEMPTED, 0, 2), log.take());
        for (int i = 0; i < ReservationLog.CAPACITY + 3; i++) {
            log.add(TYPE_RESERVATION_PREEMPTED, 1);
        }
        for (int i = 0; i < ReservationLog.CAPACITY - 1; i++) {
            log.take();
        }
        assertEquals(2 + ReservationLog.CAPACITY + 3, log.take().count(), "the last page read jumps over the 3 lost");
    }
}
