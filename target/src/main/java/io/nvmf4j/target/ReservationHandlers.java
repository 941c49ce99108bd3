package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.io.IoOpcode;
import io.nvmf4j.protocol.io.ReservationCommands;
import io.nvmf4j.protocol.io.ReservationKeys;
import io.nvmf4j.protocol.io.ReservationStatus;
import io.nvmf4j.protocol.log.ReservationNotificationLog;
import io.nvmf4j.target.reservation.Registrant;
import io.nvmf4j.target.reservation.ReservationNotice;
import io.nvmf4j.target.reservation.ReservationState;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The reservation commands on an I/O queue (NVMe Base 2.0, 7.2-7.5; Linux {@code target/pr.c}
 * nvmet_parse_pr_cmd() and nvmet_execute_pr_*()), the Reservation Notification log page (80h) and the
 * Reservation Notification Mask (82h) and Reservation Persistence (83h) features, over the namespace's
 * {@link ReservationState}. Notifications a command owes are delivered here: an entry in the log of every
 * controller of the host concerned and the Reservation Log Page Available event (nvmet_pr_send_event_to_host()).
 */
final class ReservationHandlers {

    /** Identify Controller ONCS bit 5: Reservations supported. */
    static final int ONCS_RESERVATIONS = 1 << 5;
    /**
     * Identify Namespace RESCAP (Figure 280): bits 1-6 the six types, bit 7 IEKEY with the NVMe 1.3 behaviour
     * (nvmet: NVME_PR_SUPPORT_* | NVME_PR_SUPPORT_IEKEY_VER_1_3_DEF); bit 0 Persist Through Power Loss when the
     * namespace has a PTPL file.
     */
    static final int RESCAP_TYPES_IEKEY = 0xFE;
    static final int RESCAP_PTPL = 1;

    private static final int REGISTER = IoOpcode.RESERVATION_REGISTER.code();
    private static final int REPORT = IoOpcode.RESERVATION_REPORT.code();
    private static final int ACQUIRE = IoOpcode.RESERVATION_ACQUIRE.code();
    private static final int RELEASE = IoOpcode.RESERVATION_RELEASE.code();

    private ReservationHandlers() {
    }

    static boolean isReservationCommand(int opcode) {
        return opcode == REGISTER || opcode == REPORT || opcode == ACQUIRE || opcode == RELEASE;
    }

    static int rescap(SubsystemNamespace ns) {
        return RESCAP_TYPES_IEKEY | (ns.reservation().ptplCapable() ? RESCAP_PTPL : 0);
    }

    /** nvmet_parse_pr_cmd(): the data each command moves; a report longer than MDTS is an invalid field. */
    static Status parse(Request req, int opcode, DataDirection direction) {
        SubmissionQueueEntry sqe = req.sqe();
        if (opcode == REGISTER) {
            req.preparedAtMost(ReservationHandlers::register, direction, ReservationKeys.SIZE);
        } else if (opcode == ACQUIRE) {
            req.preparedAtMost(ReservationHandlers::acquire, direction, ReservationKeys.SIZE);
        } else if (opcode == RELEASE) {
            // libnvme sends 8 bytes (CRKEY), the kernel's nvme_pr_release() 16
            req.preparedAtMost(ReservationHandlers::release, direction, ReservationKeys.RELEASE_SIZE);
        } else {
            long length = ReservationCommands.reportLength(sqe);
            if (length > req.queue().port().maxDataTransferBytes()) {
                req.errorLocation(AdminCommands.OFFSET_CDW10);
                return StatusCode.INVALID_FIELD.withDnr();
            }
            req.prepared(ReservationHandlers::report, direction, length);
        }
        return Status.SUCCESS;
    }

    /**
     * A controller without a host identifier (all zeroes, NVMe Base 2.0, 5.27.1.25: "not specified") cannot take
     * part in reservations: its registrations could not be told from another such host's. Command Sequence Error:
     * a host identifier must come first.
     */
    private static Status requireHostId(Request req, Controller ctrl) {
        if (ctrl.hostIdHigh == 0 && ctrl.hostIdLow == 0) {
            req.errorLocation(SubmissionQueueEntry.OFFSET_OPCODE);
            return StatusCode.CMD_SEQ_ERROR.withDnr();
        }
        return Status.SUCCESS;
    }

    /** One of Register, Acquire, Release on the namespace's reservation state, given the checked command. */
    @FunctionalInterface
    private interface ReservationAction {
        Status apply(ReservationState state, Controller ctrl, SubmissionQueueEntry sqe, MemorySegment data,
                List<ReservationNotice> notices);
    }

    /**
     * What nvmet_execute_pr_register(), _acquire() and _release() share: the data holds at least {@code size}
     * bytes, the controller has a host identifier; then the action, and the notifications it owes delivered.
     */
    private static Status execute(Request req, int size, ReservationAction action) {
        Status s = Transfers.checkLengthAtLeast(req, size);
        Controller ctrl = req.queue().controller();
        if (s.isSuccess()) {
            s = requireHostId(req, ctrl);
        }
        if (!s.isSuccess()) {
            return s;
        }
        List<ReservationNotice> notices = new ArrayList<>();
        s = action.apply(req.ns.reservation(), ctrl, req.sqe(), req.data(), notices);
        return finish(req, s, notices);
    }

    private static Status register(Request req) {
        return execute(req, ReservationKeys.SIZE, (state, ctrl, sqe, data, notices) -> state.register(ctrl.host(),
                ctrl.id(), ReservationCommands.action(sqe), ReservationCommands.ignoreExistingKey(sqe),
                ReservationCommands.cptpl(sqe), ReservationKeys.crkey(data), ReservationKeys.secondKey(data),
                notices));
    }

    private static Status acquire(Request req) {
        return execute(req, ReservationKeys.SIZE, (state, ctrl, sqe, data, notices) -> state.acquire(ctrl.host(),
                ReservationCommands.action(sqe), ReservationCommands.rtype(sqe),
                ReservationCommands.ignoreExistingKey(sqe), ReservationKeys.crkey(data),
                ReservationKeys.secondKey(data), notices));
    }

    private static Status release(Request req) {
        return execute(req, ReservationKeys.RELEASE_SIZE, (state, ctrl, sqe, data, notices) -> state.release(
                ctrl.host(), ReservationCommands.action(sqe), ReservationCommands.rtype(sqe),
                ReservationCommands.ignoreExistingKey(sqe), ReservationKeys.crkey(data), notices));
    }

    private static Status finish(Request req, Status status, List<ReservationNotice> notices) {
        if (!status.isSuccess()) {
            req.errorLocation(SubmissionQueueEntry.OFFSET_CDW10);
        }
        deliver(req.queue().controller().subsystem(), req.ns.nsid(), notices);
        return status;
    }

    /** nvmet_pr_send_event_to_host(): a log entry and an event for every controller of each host concerned. */
    static void deliver(Subsystem subsystem, long nsid, List<ReservationNotice> notices) {
        if (notices.isEmpty()) {
            return;
        }
        for (Controller c : subsystem.controllers()) {
            for (ReservationNotice n : notices) {
                if (n.host().matches(c.hostIdHigh, c.hostIdLow)) {
                    c.reservationLog().add(n.type(), nsid);
                    c.asyncEvents().reservationLogAvailable();
                }
            }
        }
    }

    /**
     * nvmet_execute_pr_report(): only the extended data structure (the host identifiers here are 128 bits: without
     * EDS, Host Identifier Inconsistent Format, as nvmet and SPDK); at least its 64-byte header.
     */
    private static Status report(Request req) {
        SubmissionQueueEntry sqe = req.sqe();
        long length = ReservationCommands.reportLength(sqe);
        Status s = Transfers.checkLength(req, length);
        if (!s.isSuccess()) {
            return s;
        }
        if (!ReservationCommands.extendedDataStructure(sqe)) {
            req.errorLocation(AdminCommands.OFFSET_CDW11);
            return StatusCode.HOST_ID_INCONSIST.withDnr();
        }
        if (length < ReservationStatus.EXTENDED_HEADER_SIZE) {
            req.errorLocation(AdminCommands.OFFSET_CDW10);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        ReservationState.Snapshot snap = req.ns.reservation().snapshot();
        List<ReservationStatus.RegisteredController> list = new ArrayList<>();
        for (Registrant r : snap.registrants()) {
            list.add(new ReservationStatus.RegisteredController(r.cntlid(), snap.holds(r), r.host().toBytes(),
                    r.key()));
        }
        new ReservationStatus(snap.generation(), snap.type() == null ? 0 : snap.type().code(),
                snap.registrants().size(), snap.ptpl(), list).encode(req.data(), true);
        return Status.SUCCESS;
    }

    // ---- admin: log page 80h, features 82h / 83h ----

    /** nvmet_execute_get_log_page_resv(): the oldest notification (64 bytes, the rest of the buffer zero). */
    static Status notificationLog(Request req, GetLogPageCommand cmd) {
        Controller ctrl = req.queue().controller();
        ReservationNotificationLog page = ctrl.reservationLog().take();
        req.data().fill((byte) 0);
        if (req.transferLength() >= ReservationNotificationLog.SIZE) {
            page.encode(req.data());
        } else {
            byte[] full = new byte[ReservationNotificationLog.SIZE];
            page.encode(java.lang.foreign.MemorySegment.ofArray(full));
            req.data().copyFrom(java.lang.foreign.MemorySegment.ofArray(full).asSlice(0, req.transferLength()));
        }
        ctrl.asyncEvents().clearReservationMask(cmd.rae());
        return Status.SUCCESS;
    }

    /** nvmet_get_feat_resv_notif_mask() and Get Features Reservation Persistence: per namespace. */
    static Status getFeature(Request req, int fid) {
        SubsystemNamespace ns = req.queue().controller().subsystem().activeNamespace(req.sqe().nsid());
        if (ns == null) {
            req.errorLocation(SubmissionQueueEntry.OFFSET_NSID);
            return StatusCode.INVALID_NS.withDnr();
        }
        ReservationState st = ns.reservation();
        req.cqe().dw0(fid == RESERVATION_NOTIFICATION_MASK ? st.notifyMask() : st.ptplActive() ? 1 : 0);
        return Status.SUCCESS;
    }

    static final int RESERVATION_NOTIFICATION_MASK = 0x82;
    static final int RESERVATION_PERSISTENCE = 0x83;

    /**
     * nvmet_set_feat_resv_notif_mask(): NSID FFFFFFFFh sets every namespace; Reservation Persistence (83h) CDW11 bit
     * 0 PTPL, one namespace.
     */
    static Status setFeature(Request req, int fid) {
        Subsystem subsys = req.queue().controller().subsystem();
        long nsid = req.sqe().nsid();
        int value = req.sqe().cdw11();
        if (fid == RESERVATION_NOTIFICATION_MASK) {
            if ((value & ~ReservationState.NOTIFY_MASK_ALL) != 0) {
                req.errorLocation(AdminCommands.OFFSET_CDW11);
                return StatusCode.INVALID_FIELD.withDnr();
            }
            if (nsid == 0xFFFF_FFFFL) {
                subsys.activeNamespaces().forEach(ns -> ns.reservation().notifyMask(value));
            } else {
                SubsystemNamespace ns = subsys.activeNamespace(nsid);
                if (ns == null) {
                    req.errorLocation(SubmissionQueueEntry.OFFSET_NSID);
                    return StatusCode.INVALID_NS.withDnr();
                }
                ns.reservation().notifyMask(value);
            }
            req.cqe().dw0(value);
            return Status.SUCCESS;
        }
        SubsystemNamespace ns = subsys.activeNamespace(nsid);
        if (ns == null) {
            req.errorLocation(SubmissionQueueEntry.OFFSET_NSID);
            return StatusCode.INVALID_NS.withDnr();
        }
        Status s = ns.reservation().ptpl((value & 1) != 0);
        if (!s.isSuccess()) {
            req.errorLocation(AdminCommands.OFFSET_CDW11);
        }
        return s;
    }
}
