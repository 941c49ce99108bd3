package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.AdminOpcode;
import io.nvmf4j.protocol.admin.FeatureId;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import java.lang.System.Logger.Level;

/**
 * Admin commands of an NVM controller (Linux {@code admin-cmd.c}): dispatch (nvmet_parse_admin_cmd()), Get/Set
 * Features, Keep Alive, Asynchronous Event Request and Abort. Identify is in {@link IdentifyHandlers}, Get Log Page
 * in {@link LogPageHandlers}; a discovery controller's admin commands go to {@link DiscoveryCommands}.
 */
final class AdminCommands {

    private static final System.Logger LOG = System.getLogger(AdminCommands.class.getName());

    static final int OFFSET_CDW10 = SubmissionQueueEntry.OFFSET_CDW10;
    static final int OFFSET_CDW11 = SubmissionQueueEntry.OFFSET_CDW10 + 4;
    /** Set/Get Features CDW10 bits 7:0. */
    static final int FID_MASK = 0xFF;

    private AdminCommands() {
    }

    static Status parse(Request req) {
        SubmissionQueueEntry sqe = req.sqe();
        if (FabricsCommands.isFabrics(sqe)) {
            return FabricsCommands.parseAdmin(req);
        }
        Controller ctrl = req.queue().controller();
        if (ctrl.subsystem().isDiscovery()) {
            return DiscoveryCommands.parse(req);
        }
        Status status = checkControllerStatus(req);
        if (!status.isSuccess()) {
            return status;
        }
        int opcode = sqe.opcode();
        DataDirection direction = DataDirection.ofOpcode(opcode);
        if (opcode == AdminOpcode.GET_LOG_PAGE.code()) {
            req.prepared(LogPageHandlers::getLogPage, direction, GetLogPageCommand.wrap(sqe).lengthBytes());
        } else if (opcode == AdminOpcode.IDENTIFY.code()) {
            req.prepared(IdentifyHandlers::identify, direction, IdentifyCommand.DATA_LENGTH);
        } else if (opcode == AdminOpcode.ABORT.code()) {
            req.prepared(AdminCommands::abort, direction, 0);
        } else if (opcode == AdminOpcode.SET_FEATURES.code()) {
            req.preparedAtMost(AdminCommands::setFeatures, direction, 0);
        } else if (opcode == AdminOpcode.GET_FEATURES.code()) {
            // exactly the feature's data (nvmet_execute_get_features(): nvmet_check_transfer_len()); Set Features
            // takes a longer SGL and uses none of it (nvmet_check_data_len_lte() in current nvmet)
            req.prepared(AdminCommands::getFeatures, direction, featureDataLength(sqe.cdw10()));
        } else if (opcode == AdminOpcode.ASYNC_EVENT_REQUEST.code()) {
            req.prepared(AdminCommands::asyncEventRequest, direction, 0);
        } else if (opcode == AdminOpcode.KEEP_ALIVE.code()) {
            req.prepared(AdminCommands::keepAlive, direction, 0);
        } else {
            return invalidOpcode(req);
        }
        return Status.SUCCESS;
    }

    /** nvmet_report_invalid_opcode(). */
    static Status invalidOpcode(Request req) {
        LOG.log(Level.DEBUG, "unhandled opcode {0} on qid {1}", req.sqe().opcode(), req.queue().qid().value());
        req.errorLocation(SubmissionQueueEntry.OFFSET_OPCODE);
        return StatusCode.INVALID_OPCODE.withDnr();
    }

    /** nvmet_check_ctrl_status(): commands other than fabrics ones need CC.EN = 1 and CSTS.RDY = 1. */
    static Status checkControllerStatus(Request req) {
        Controller ctrl = req.queue().controller();
        if (!ctrl.isEnabled() || !ctrl.isReady()) {
            LOG.log(Level.DEBUG, "command {0} on qid {1} while the controller is not enabled and ready",
                    req.sqe().opcode(), req.queue().qid().value());
            return StatusCode.CMD_SEQ_ERROR.withDnr();
        }
        return Status.SUCCESS;
    }

    /** nvmet_feat_data_len(): only Get Features Host Identifier returns data (16 bytes, 128-bit host ID). */
    static long featureDataLength(int cdw10) {
        return (cdw10 & FID_MASK) == FeatureId.HOST_IDENTIFIER.code() ? 16 : 0;
    }

    static int numberOfQueuesResult(Controller ctrl) {
        int n = ctrl.subsystem().maxIoQueues() - 1;
        return n | n << 16;
    }

    /** nvmet_execute_abort(): nothing is aborted; DW0 bit 0 set says "command not aborted". */
    private static Status abort(Request req) {
        Status s = Transfers.checkLength(req, 0);
        if (!s.isSuccess()) {
            return s;
        }
        req.cqe().dw0(1);
        return Status.SUCCESS;
    }

    /** nvmet_execute_keep_alive(). */
    static Status keepAlive(Request req) {
        Status s = Transfers.checkLength(req, 0);
        if (!s.isSuccess()) {
            return s;
        }
        Controller ctrl = req.queue().controller();
        if (ctrl.keepAliveTimeoutSeconds() == 0) {
            return StatusCode.KA_TIMEOUT_INVALID.status();
        }
        ctrl.keepAlive();
        return Status.SUCCESS;
    }

    /** nvmet_execute_async_event(): held until an event; ASYNC_LIMIT beyond four outstanding. */
    static Status asyncEventRequest(Request req) {
        Status s = Transfers.checkLength(req, 0);
        if (!s.isSuccess()) {
            return s;
        }
        // waiting before the offer: an event already pending completes the request inside it
        req.waitFor(ExecutionState.WAITING_FOR_EVENT);
        if (!req.queue().controller().asyncEvents().offer(req)) {
            return StatusCode.ASYNC_LIMIT.withDnr();
        }
        return null;
    }

    /** nvmet_execute_get_features(). */
    private static Status getFeatures(Request req) {
        int cdw10 = req.sqe().cdw10();
        Status s = Transfers.checkLength(req, featureDataLength(cdw10));
        if (!s.isSuccess()) {
            return s;
        }
        Controller ctrl = req.queue().controller();
        int fid = cdw10 & FID_MASK;
        if (fid == ReservationHandlers.RESERVATION_NOTIFICATION_MASK
                || fid == ReservationHandlers.RESERVATION_PERSISTENCE) {
            return ReservationHandlers.getFeature(req, fid);
        }
        FeatureId feature = FeatureId.fromCode(fid).orElse(null);
        if (feature == null) {
            req.errorLocation(OFFSET_CDW10);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        switch (feature) {
            // Mandatory in NVMe Base 2.0 (Figure 317) and answered by SPDK; nvmet has them under #if 0 ("no useful
            // way to implement them") and refuses them. Interrupt Coalescing and Interrupt Vector Configuration do
            // not exist on fabrics (NVMe-oF 1.1, 2.1): refused below like nvmet.
            case ARBITRATION, POWER_MANAGEMENT, TEMPERATURE_THRESHOLD, ERROR_RECOVERY, WRITE_ATOMICITY_NORMAL ->
                    req.cqe().dw0(0);
            case ASYNC_EVENT_CONFIGURATION -> req.cqe().dw0(ctrl.asyncEvents().enabled());
            case VOLATILE_WRITE_CACHE -> req.cqe().dw0(ctrl.volatileWriteCacheEnabled() ? 1 : 0);
            case NUMBER_OF_QUEUES -> req.cqe().dw0(numberOfQueuesResult(ctrl));
            case KEEP_ALIVE_TIMER -> req.cqe().dw0(ctrl.keepAliveTimeoutSeconds() * 1000);
            case HOST_IDENTIFIER -> {
                // only the 128-bit host identifier (EXHID) exists on fabrics
                if ((req.sqe().cdw11() & 1) == 0) {
                    req.errorLocation(OFFSET_CDW11);
                    return StatusCode.INVALID_FIELD.withDnr();
                }
                req.data().asSlice(0, 16).copyFrom(java.lang.foreign.MemorySegment.ofArray(ctrl.hostId()));
            }
            case NAMESPACE_WRITE_PROTECTION -> {
                return WriteProtectFeature.get(req);
            }
            default -> {
                req.errorLocation(OFFSET_CDW10);
                return StatusCode.INVALID_FIELD.withDnr();
            }
        }
        return Status.SUCCESS;
    }

    /** nvmet_execute_set_features(), plus the Volatile Write Cache feature nvmet refuses. */
    private static Status setFeatures(Request req) {
        Controller ctrl = req.queue().controller();
        int cdw10 = req.sqe().cdw10();
        int cdw11 = req.sqe().cdw11();
        int fid = cdw10 & FID_MASK;
        if (fid == FeatureId.NUMBER_OF_QUEUES.code()) {
            int ncqr = cdw11 >>> 16;
            int nsqr = cdw11 & 0xFFFF;
            if (ncqr == 0xFFFF || nsqr == 0xFFFF) {
                return StatusCode.INVALID_FIELD.withDnr();
            }
            req.cqe().dw0(numberOfQueuesResult(ctrl));
        } else if (fid == FeatureId.KEEP_ALIVE_TIMER.code()) {
            return setKeepAliveTimer(req, ctrl);
        } else if (fid == FeatureId.ASYNC_EVENT_CONFIGURATION.code()) {
            return setAsyncEventConfiguration(req, ctrl, AsyncEvents.AEN_SUPPORTED_NVM);
        } else if (fid == FeatureId.VOLATILE_WRITE_CACHE.code()) {
            // WCE off: every write is completed only once stable (handled as FUA by the I/O path)
            ctrl.volatileWriteCacheEnabled((cdw11 & 1) != 0);
            req.cqe().dw0(cdw11 & 1);
        } else if (fid == ReservationHandlers.RESERVATION_NOTIFICATION_MASK
                || fid == ReservationHandlers.RESERVATION_PERSISTENCE) {
            return ReservationHandlers.setFeature(req, fid);
        } else if (fid == FeatureId.HOST_IDENTIFIER.code()) {
            // the host identifier is fixed by Connect
            return StatusCode.CMD_SEQ_ERROR.withDnr();
        } else if (fid == FeatureId.NAMESPACE_WRITE_PROTECTION.code()) {
            return WriteProtectFeature.set(req);
        } else {
            req.errorLocation(OFFSET_CDW10);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        return Status.SUCCESS;
    }

    /** nvmet_set_feat_kato(): the result is the new timeout in seconds, as nvmet reports it. */
    static Status setKeepAliveTimer(Request req, Controller ctrl) {
        ctrl.keepAliveTimeout(Integer.toUnsignedLong(req.sqe().cdw11()));
        req.cqe().dw0(ctrl.keepAliveTimeoutSeconds());
        return Status.SUCCESS;
    }

    /** nvmet_set_feat_async_event(): bits outside {@code supported} are an invalid field. */
    static Status setAsyncEventConfiguration(Request req, Controller ctrl, int supported) {
        int value = req.sqe().cdw11();
        if ((value & ~supported) != 0) {
            req.errorLocation(OFFSET_CDW11);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        ctrl.asyncEvents().enabled(value);
        req.cqe().dw0(value);
        return Status.SUCCESS;
    }
}
