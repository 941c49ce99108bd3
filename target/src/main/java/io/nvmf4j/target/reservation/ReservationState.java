package io.nvmf4j.target.reservation;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.io.ReservationCommands;
import io.nvmf4j.protocol.io.ReservationType;
import io.nvmf4j.protocol.log.ReservationNotificationLog;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The reservation state of one namespace (NVMe Base 2.0, 8.19 Reservations; Linux {@code struct nvmet_pr} and
 * {@code target/pr.c}, SPDK's {@code spdk_nvmf_ns} reservation fields and {@code nvmf_ns_reservation_*()}):
 * the registrants (one per host identifier, as nvmet and SPDK key them), the reservation holder and type, the
 * generation counter, the notification mask (Set Features 82h, per namespace as nvmet/SPDK keep it) and Persist
 * Through Power Loss.
 *
 * <p><b>I/O path</b>: {@link #allows(long, long, boolean)} is one volatile read while nobody holds a reservation
 * (the common case) and touches no heap otherwise. <b>Commands</b> ({@link #register}, {@link #acquire},
 * {@link #release}) run under this object's lock and publish new immutable registrant arrays and holder records;
 * they append the notifications they owe to a caller's list (nvmet_pr_registration_preempted(),
 * nvmet_pr_resv_released(), nvmet_pr_resv_preempted()), filtered by the notification mask.
 *
 * <p>Statuses follow nvmet where it and the spec agree; where nvmet is laxer than the spec the spec (and SPDK) wins:
 * a Release naming another type than the reservation's is Invalid Field (nvmet: Reservation Conflict), and a
 * registrant of an All Registrants reservation holds it for Acquire and Release (8.19.1; nvmet only the first).
 */
public final class ReservationState {

    private static final System.Logger LOG = System.getLogger(ReservationState.class.getName());

    /**
     * Registrants per namespace. Any connected host may register under any host identifier it connects with, so the
     * list is bounded; SPDK bounds it too (SPDK_NVMF_MAX_NUM_REGISTRANTS, 16) and answers Internal Error beyond.
     */
    public static final int MAX_REGISTRANTS = 64;
    /** Reservation Notification Mask bits (Set Features 82h, Figure 333): REGPRE 1, RESREL 2, RESPRE 3. */
    public static final int NOTIFY_MASK_ALL = 1 << ReservationNotificationLog.TYPE_REGISTRATION_PREEMPTED
            | 1 << ReservationNotificationLog.TYPE_RESERVATION_RELEASED
            | 1 << ReservationNotificationLog.TYPE_RESERVATION_PREEMPTED;

    private static final Registrant[] NONE = new Registrant[0];
    private static final Status CONFLICT = StatusCode.RESERVATION_CONFLICT.withDnr();
    private static final Status INVALID_FIELD = StatusCode.INVALID_FIELD.withDnr();

    /** The reservation: its type and the holder (for All Registrants types the first registrant, as nvmet). */
    record Held(ReservationType type, Registrant holder) {
    }

    private volatile Held held;
    private volatile Registrant[] registrants = NONE;
    private volatile int notifyMask;
    private long generation;
    private boolean ptplActive;
    private boolean ptplOnDisk;
    private PtplFile ptplFile;

    // ---- the I/O path ----

    /**
     * The access rules of NVMe Base 2.0, Figure 530 ("Command Behavior in the Presence of a Reservation") for a
     * command of the read group (Read) or the write group (Write, Write Zeroes, Dataset Management, Flush; nvmet's
     * nvmet_is_req_write_cmd_group()) from the host {@code (hostHigh, hostLow)}; nvmet_pr_check_cmd_access().
     */
    public boolean allows(long hostHigh, long hostLow, boolean write) {
        Held h = held;
        return h == null || allowsHeld(h, hostHigh, hostLow, write);
    }

    private boolean allowsHeld(Held h, long hostHigh, long hostLow, boolean write) {
        if (h.holder.host().matches(hostHigh, hostLow)) {
            return true;
        }
        ReservationType t = h.type;
        if (!write && !t.excludesReads()) {
            return true; // Write Exclusive types leave reads to everybody
        }
        // Registrants Only / All Registrants: registrants have access; the plain types keep everybody else out
        return t.registrantsHaveAccess() && isRegistered(hostHigh, hostLow);
    }

    private boolean isRegistered(long hostHigh, long hostLow) {
        for (Registrant r : registrants) {
            if (r.host().matches(hostHigh, hostLow)) {
                return true;
            }
        }
        return false;
    }

    // ---- commands ----

    /**
     * Reservation Register (NVMe Base 2.0, 7.3; nvmet_execute_pr_register()): register a key, unregister, or replace
     * the key; IEKEY skips the current-key check of unregister and replace; CPTPL changes Persist Through Power Loss
     * once the action succeeded. A successful command increments the generation.
     */
    public synchronized Status register(HostId host, int cntlid, int action, boolean iekey, int cptpl, long crkey,
            long nrkey, List<ReservationNotice> out) {
        if (cptpl == 1 || (cptpl == ReservationCommands.CPTPL_PERSIST && ptplFile == null)) {
            return INVALID_FIELD; // 01b is reserved; persisting needs a PTPL file (RESCAP bit 0 clear otherwise)
        }
        Registrant reg = find(host);
        Status status;
        switch (action) {
            case ReservationCommands.REGISTER_ACTION_REGISTER -> {
                if (reg != null) {
                    status = reg.key() == nrkey ? Status.SUCCESS : CONFLICT; // same key again is no error
                } else if (registrants.length >= MAX_REGISTRANTS) {
                    LOG.log(Level.WARNING, "registrant list full ({0}); host {1} not registered", MAX_REGISTRANTS,
                            host);
                    status = StatusCode.INTERNAL.withDnr();
                } else {
                    Registrant[] next = Arrays.copyOf(registrants, registrants.length + 1);
                    next[next.length - 1] = new Registrant(host, nrkey, cntlid);
                    registrants = next;
                    status = Status.SUCCESS;
                }
            }
            case ReservationCommands.REGISTER_ACTION_UNREGISTER -> {
                if (reg == null || (!iekey && reg.key() != crkey)) {
                    status = CONFLICT;
                } else {
                    unregister(reg, out);
                    status = Status.SUCCESS;
                }
            }
            case ReservationCommands.REGISTER_ACTION_REPLACE -> {
                if (reg == null || (!iekey && reg.key() != crkey)) {
                    status = CONFLICT;
                } else {
                    replace(reg, reg.withKey(nrkey));
                    status = Status.SUCCESS;
                }
            }
            default -> status = INVALID_FIELD;
        }
        if (status.isSuccess()) {
            generation++;
            if (cptpl == ReservationCommands.CPTPL_CLEAR) {
                ptplActive = false;
            } else if (cptpl == ReservationCommands.CPTPL_PERSIST) {
                ptplActive = true;
            }
            return persisted();
        }
        return status;
    }

    /**
     * Reservation Acquire (7.2; nvmet_execute_pr_acquire()): acquire, preempt, or preempt and abort, by a registrant
     * whose key is CRKEY. IEKEY is an invalid field here (nvmet). Preempts increment the generation.
     *
     * <p>Preempt and abort removes the preempted hosts' access at once: their commands parsed afterwards complete
     * with Reservation Conflict; commands already executing on a poll thread finish (nvmet waits for them before
     * completing the preempt; commands here execute right after their access check, on their poll thread).
     */
    public synchronized Status acquire(HostId host, int action, int rtype, boolean iekey, long crkey, long prkey,
            List<ReservationNotice> out) {
        ReservationType type = ReservationType.ofCode(rtype);
        if (iekey || type == null) {
            return INVALID_FIELD;
        }
        Registrant reg = find(host);
        if (reg == null || reg.key() != crkey) {
            return CONFLICT;
        }
        switch (action) {
            case ReservationCommands.ACQUIRE_ACTION_ACQUIRE -> {
                Held h = held;
                if (h != null) {
                    return isHolder(h, host) && h.type == type ? Status.SUCCESS : CONFLICT;
                }
                held = new Held(type, reg);
                return persisted();
            }
            case ReservationCommands.ACQUIRE_ACTION_PREEMPT, ReservationCommands.ACQUIRE_ACTION_PREEMPT_AND_ABORT -> {
                Status s = preempt(reg, type, prkey, out);
                if (s.isSuccess()) {
                    generation++;
                    return persisted();
                }
                return s;
            }
            default -> {
                return INVALID_FIELD;
            }
        }
    }

    /** nvmet_pr_preempt(), the cases of NVMe Base 2.0, 8.19.6 (Preempting a Reservation or Registration). */
    private Status preempt(Registrant reg, ReservationType type, long prkey, List<ReservationNotice> out) {
        Held h = held;
        HostId me = reg.host();
        if (h == null) {
            return unregisterByKey(prkey, me, out);
        }
        if (h.type.allRegistrants()) {
            if (prkey != 0) {
                return unregisterByKey(prkey, me, out);
            }
            // set the new holder first, so the others lose access before they are unregistered (nvmet)
            held = new Held(type, reg);
            for (Registrant r : registrants) {
                if (!r.host().equals(me)) {
                    unregister(r, out);
                    notify(out, r.host(), ReservationNotificationLog.TYPE_REGISTRATION_PREEMPTED);
                }
            }
            return Status.SUCCESS;
        }
        if (h.holder.host().equals(me)) {
            // the holder preempting itself changes the type
            held = new Held(type, reg);
            if (h.type != type) {
                notifyReleased(me, out);
            }
            return Status.SUCCESS;
        }
        if (prkey == h.holder.key()) {
            held = new Held(type, reg);
            for (Registrant r : registrants) {
                if (r.key() == prkey && !r.host().equals(me)) {
                    unregister(r, out);
                    notify(out, r.host(), ReservationNotificationLog.TYPE_REGISTRATION_PREEMPTED);
                }
            }
            if (h.type != type) {
                notifyReleased(me, out);
            }
            return Status.SUCCESS;
        }
        return prkey != 0 ? unregisterByKey(prkey, me, out) : INVALID_FIELD;
    }

    /**
     * Reservation Release (7.5; nvmet_execute_pr_release()): release (a no-op for a registrant that does not hold
     * it) or clear (every registration and the reservation go; the generation increments).
     */
    public synchronized Status release(HostId host, int action, int rtype, boolean iekey, long crkey,
            List<ReservationNotice> out) {
        if (iekey) {
            return INVALID_FIELD;
        }
        Registrant reg = find(host);
        if (reg == null || reg.key() != crkey) {
            return CONFLICT;
        }
        switch (action) {
            case ReservationCommands.RELEASE_ACTION_RELEASE -> {
                Held h = held;
                if (h == null || !isHolder(h, host)) {
                    return Status.SUCCESS;
                }
                if (h.type.code() != rtype) {
                    return INVALID_FIELD;
                }
                held = null;
                if (h.type.registrantsHaveAccess()) {
                    notifyReleased(host, out); // registrants lose an access they had as such
                }
                return persisted();
            }
            case ReservationCommands.RELEASE_ACTION_CLEAR -> {
                held = null;
                for (Registrant r : registrants) {
                    if (!r.host().equals(host)) {
                        notify(out, r.host(), ReservationNotificationLog.TYPE_RESERVATION_PREEMPTED);
                    }
                }
                registrants = NONE;
                generation++;
                return persisted();
            }
            default -> {
                return INVALID_FIELD;
            }
        }
    }

    // ---- registrant list ----

    private Registrant find(HostId host) {
        for (Registrant r : registrants) {
            if (r.host().equals(host)) {
                return r;
            }
        }
        return null;
    }

    private static boolean isHolder(Held h, HostId host) {
        // every registrant holds an All Registrants reservation (8.19.1); the caller knows host is a registrant
        return h.type.allRegistrants() || h.holder.host().equals(host);
    }

    private void replace(Registrant old, Registrant now) {
        Registrant[] next = registrants.clone();
        for (int i = 0; i < next.length; i++) {
            if (next[i] == old) {
                next[i] = now;
            }
        }
        registrants = next;
        Held h = held;
        if (h != null && h.holder == old) {
            held = new Held(h.type, now);
        }
    }

    /** nvmet_pr_unregister_one(): removes one registrant; the reservation follows the spec's rules (8.19.5). */
    private void unregister(Registrant reg, List<ReservationNotice> out) {
        Registrant[] cur = registrants;
        List<Registrant> next = new ArrayList<>(cur.length);
        for (Registrant r : cur) {
            if (r != reg) {
                next.add(r);
            }
        }
        registrants = next.toArray(NONE);
        Held h = held;
        if (h == null || h.holder != reg) {
            return;
        }
        if (h.type.allRegistrants()) {
            // an All Registrants reservation lasts while any registrant does
            held = next.isEmpty() ? null : new Held(h.type, next.get(0));
        } else {
            held = null;
            if (h.type.registrantsHaveAccess()) {
                notifyReleased(reg.host(), out);
            }
        }
    }

    /** nvmet_pr_unreg_all_host_by_prkey(): a conflict when no registrant has the key. */
    private Status unregisterByKey(long prkey, HostId requester, List<ReservationNotice> out) {
        boolean any = false;
        for (Registrant r : registrants) {
            if (r.key() == prkey) {
                any = true;
                unregister(r, out);
                if (!r.host().equals(requester)) {
                    notify(out, r.host(), ReservationNotificationLog.TYPE_REGISTRATION_PREEMPTED);
                }
            }
        }
        return any ? Status.SUCCESS : CONFLICT;
    }

    /** nvmet_pr_resv_released(): every other registrant hears that the reservation was released. */
    private void notifyReleased(HostId except, List<ReservationNotice> out) {
        for (Registrant r : registrants) {
            if (!r.host().equals(except)) {
                notify(out, r.host(), ReservationNotificationLog.TYPE_RESERVATION_RELEASED);
            }
        }
    }

    private void notify(List<ReservationNotice> out, HostId host, int type) {
        if ((notifyMask & 1 << type) == 0) {
            out.add(new ReservationNotice(host, type));
        }
    }

    // ---- report, features ----

    /** What Reservation Report shows (nvmet_execute_pr_report()). */
    public record Snapshot(long generation, ReservationType type, List<Registrant> registrants, Registrant holder,
            boolean ptpl) {

        /** RCSTS bit 0 of a registrant: it holds the reservation (all registrants do for All Registrants types). */
        public boolean holds(Registrant r) {
            return type != null && (type.allRegistrants() || r.host().equals(holder.host()));
        }
    }

    public synchronized Snapshot snapshot() {
        Held h = held;
        return new Snapshot(generation & 0xFFFF_FFFFL, h == null ? null : h.type, List.of(registrants),
                h == null ? null : h.holder, ptplActive);
    }

    /** Reservation Notification Mask (Set Features 82h): bits outside {@link #NOTIFY_MASK_ALL} are refused. */
    public int notifyMask() {
        return notifyMask;
    }

    public void notifyMask(int mask) {
        if ((mask & ~NOTIFY_MASK_ALL) != 0) {
            throw new IllegalArgumentException("reservation notification mask " + mask);
        }
        notifyMask = mask;
    }

    // ---- persist through power loss ----

    /** Whether PTPL can be switched on (Identify Namespace RESCAP bit 0): a PTPL file was given. */
    public synchronized boolean ptplCapable() {
        return ptplFile != null;
    }

    public synchronized boolean ptplActive() {
        return ptplActive;
    }

    /**
     * Set Features Reservation Persistence (83h): switches PTPL. False when this namespace cannot persist (no file).
     */
    public synchronized Status ptpl(boolean persist) {
        if (persist && ptplFile == null) {
            return INVALID_FIELD;
        }
        ptplActive = persist;
        return persisted();
    }

    /**
     * Makes this namespace able to persist through power loss in {@code file} and, if the file holds a state with
     * PTPL on (written before a restart), takes that state: registrants, reservation, generation (SPDK
     * nvmf_ns_reservation_load()).
     *
     * @throws IOException the file exists but cannot be read or is not a reservation state
     */
    public synchronized void persistIn(Path file) throws IOException {
        PtplFile f = new PtplFile(file);
        PtplFile.Saved saved = f.load();
        ptplFile = f;
        if (saved == null || !saved.ptpl()) {
            return;
        }
        registrants = saved.registrants().toArray(NONE);
        generation = saved.generation();
        ptplActive = true;
        ptplOnDisk = true;
        Held h = null;
        if (saved.type() != null) {
            Registrant holder = saved.type().allRegistrants() && !saved.registrants().isEmpty()
                    ? saved.registrants().get(0)
                    : saved.registrants().stream().filter(r -> r.host().equals(saved.holder())).findFirst()
                            .orElse(null);
            if (holder == null) {
                throw new IOException(file + ": reservation holder " + saved.holder() + " is not a registrant");
            }
            h = new Held(saved.type(), holder);
        }
        held = h;
        LOG.log(Level.INFO, "{0}: {1} registrant(s), reservation {2} restored", file, registrants.length,
                h == null ? "none" : h.type);
    }

    /**
     * Writes the state when PTPL is on (or was on: the file then says it is off), after the change it reflects; a
     * failed write is an Internal Error for the command that made the change (the change stays in memory).
     */
    private Status persisted() {
        if (ptplFile == null || (!ptplActive && !ptplOnDisk)) {
            return Status.SUCCESS;
        }
        Held h = held;
        try {
            ptplFile.store(new PtplFile.Saved(ptplActive, generation, h == null ? null : h.type,
                    h == null ? null : h.holder.host(), List.of(registrants)));
            ptplOnDisk = ptplActive;
            return Status.SUCCESS;
        } catch (IOException e) {
            LOG.log(Level.ERROR, "persisting reservations in {0} failed: {1}", ptplFile.path(), e.getMessage());
            return StatusCode.INTERNAL.withDnr();
        }
    }
}
