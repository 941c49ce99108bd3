package io.nvmf4j.target;

import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.StatusCodeType;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.fabrics.ConnectCommand;
import io.nvmf4j.protocol.fabrics.ConnectData;
import io.nvmf4j.protocol.fabrics.ConnectResponse;
import io.nvmf4j.protocol.fabrics.FabricsCommandType;
import io.nvmf4j.protocol.fabrics.PropertyGetCommand;
import io.nvmf4j.protocol.fabrics.PropertySetCommand;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;

/**
 * Fabrics commands (opcode 7Fh; NVMe-oF 1.1, 3.3-3.5; Linux {@code fabrics-cmd.c}): Connect on an unbound queue,
 * Property Get/Set on the admin queue, Disconnect on an I/O queue.
 *
 * <p>Connect failures set the CQE's DW0 the way nvmet does: for Connect Invalid Parameters, IATTR (bit 16: 0 = the
 * field is in the SQE, 1 = in the 1024-byte Connect data) and IPO (bits 15:0, the field's byte offset).
 */
final class FabricsCommands {

    private static final System.Logger LOG = System.getLogger(FabricsCommands.class.getName());

    static final int OPCODE = FabricsCommandType.OPCODE;
    static final int FCTYPE_PROPERTY_SET = FabricsCommandType.PROPERTY_SET.value();
    static final int FCTYPE_CONNECT = FabricsCommandType.CONNECT.value();
    static final int FCTYPE_PROPERTY_GET = FabricsCommandType.PROPERTY_GET.value();
    static final int FCTYPE_DISCONNECT = FabricsCommandType.DISCONNECT.value();

    /** FCTYPE, byte 4 of every fabrics SQE (where NSID is in other commands). */
    static final int OFFSET_FCTYPE = 4;
    static final int OFFSET_CONNECT_RECFMT = ConnectCommand.OFFSET_RECFMT;
    static final int OFFSET_CONNECT_QID = ConnectCommand.OFFSET_QID;
    static final int OFFSET_CONNECT_SQSIZE = ConnectCommand.OFFSET_SQSIZE;
    static final int OFFSET_CONNECT_KATO = ConnectCommand.OFFSET_KATO;
    static final int OFFSET_PROPERTY_ATTRIB = PropertyGetCommand.OFFSET_ATTRIB;
    static final int OFFSET_PROPERTY_OFFSET = PropertyGetCommand.OFFSET_OFST;
    static final int OFFSET_PROPERTY_VALUE = PropertySetCommand.OFFSET_VALUE;

    static final int CONNECT_DATA_SIZE = ConnectData.SIZE;
    static final int OFFSET_DATA_HOSTID = ConnectData.OFFSET_HOSTID;
    static final int OFFSET_DATA_CNTLID = ConnectData.OFFSET_CNTLID;
    static final int OFFSET_DATA_SUBNQN = ConnectData.OFFSET_SUBNQN;
    static final int OFFSET_DATA_HOSTNQN = ConnectData.OFFSET_HOSTNQN;

    /** NVMe-oF 1.1 Figure 23: Disconnect sent on the admin queue (SPDK "invalid queue type"); not in the catalogue. */
    static final Status INVALID_QUEUE_TYPE = Status.of(StatusCodeType.COMMAND_SPECIFIC, 0x85).withDnr();

    private FabricsCommands() {
    }

    static boolean isFabrics(SubmissionQueueEntry sqe) {
        return sqe.opcode() == OPCODE;
    }

    static int fctype(SubmissionQueueEntry sqe) {
        return Wire.u8(sqe.segment(), OFFSET_FCTYPE);
    }

    /** IATTR/IPO for a field of the Connect data (nvmet IPO_IATTR_CONNECT_DATA()). */
    static int ipoConnectData(int offset) {
        return ConnectResponse.InvalidParameter.inData(offset).toDw0();
    }

    /** IATTR/IPO for a field of the Connect SQE (nvmet IPO_IATTR_CONNECT_SQE()). */
    static int ipoConnectSqe(int offset) {
        return ConnectResponse.InvalidParameter.inCommand(offset).toDw0();
    }

    /**
     * Why a Connect failed, for the transport's one line per refused connection (a peer may send Connect after
     * Connect on one connection: a WARNING for each would let it flood the log). Logged here at DEBUG only.
     */
    private static void refused(Request req, String pattern, Object... args) {
        String text = java.text.MessageFormat.format(pattern, args);
        req.refusal(text);
        LOG.log(Level.DEBUG, text);
    }

    /** nvmet_parse_connect_cmd(): an unbound queue accepts only Connect. */
    static Status parseConnect(Request req) {
        SubmissionQueueEntry sqe = req.sqe();
        if (!isFabrics(sqe)) {
            LOG.log(Level.DEBUG, "invalid command {0} on unconnected queue", sqe.opcode());
            req.errorLocation(SubmissionQueueEntry.OFFSET_OPCODE);
            return StatusCode.INVALID_OPCODE.withDnr();
        }
        if (fctype(sqe) != FCTYPE_CONNECT) {
            LOG.log(Level.DEBUG, "invalid capsule type {0} on unconnected queue", fctype(sqe));
            req.errorLocation(OFFSET_FCTYPE);
            return StatusCode.INVALID_OPCODE.withDnr();
        }
        int qid = Wire.u16(sqe.segment(), OFFSET_CONNECT_QID);
        int transportQid = req.queue().transport().connectionQid();
        if (transportQid >= 0 && qid != transportQid) {
            // The transport sized and set up this connection for another queue (NVMe-oF RDMA binding: the QID of
            // the RDMA_CM request private data is the queue the connection carries). Linux nvmet-rdma keeps it as
            // queue->host_qid (nvmet_rdma_queue_connect) but uses it only for sizing, so a connection set up as an
            // I/O queue could become an admin queue; refused here before any data is fetched, with the status and
            // IATTR/IPO nvmet_execute_io_connect() gives a QID it cannot accept (IPO_IATTR_CONNECT_SQE(qid)).
            refused(req, "Connect for queue {0} on a connection set up for queue {1} refused", qid,
                    transportQid);
            req.errorLocation(OFFSET_CONNECT_QID);
            req.cqe().dw0(ipoConnectSqe(OFFSET_CONNECT_QID));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        req.prepared(qid == 0 ? FabricsCommands::adminConnect : FabricsCommands::ioConnect,
                DataDirection.HOST_TO_CONTROLLER, CONNECT_DATA_SIZE);
        return Status.SUCCESS;
    }

    /** nvmet_parse_fabrics_admin_cmd(): Property Get/Set on the admin queue. */
    static Status parseAdmin(Request req) {
        switch (FabricsCommandType.fromValue(fctype(req.sqe())).orElse(FabricsCommandType.CONNECT)) {
            case PROPERTY_SET -> req.prepared(FabricsCommands::propertySet, DataDirection.NONE, 0);
            case PROPERTY_GET -> req.prepared(FabricsCommands::propertyGet, DataDirection.NONE, 0);
            // Disconnect deletes an I/O queue; on the admin queue it is the wrong queue type
            case DISCONNECT -> req.prepared(r -> {
                r.errorLocation(OFFSET_FCTYPE);
                return INVALID_QUEUE_TYPE;
            }, DataDirection.NONE, 0);
            case AUTH_SEND -> {
                return AuthenticationCommands.parseSend(req);
            }
            case AUTH_RECEIVE -> {
                return AuthenticationCommands.parseReceive(req);
            }
            default -> { // Connect on a bound queue, and unknown types (mapped to CONNECT above)
                LOG.log(Level.DEBUG, "unknown fabrics command type {0} on the admin queue", fctype(req.sqe()));
                req.errorLocation(OFFSET_FCTYPE);
                return StatusCode.INVALID_OPCODE.withDnr();
            }
        }
        return Status.SUCCESS;
    }

    /**
     * nvmet_parse_fabrics_io_cmd() (Authentication Send/Receive) plus Disconnect (NVMe-oF 1.1, 3.4), which nvmet
     * does not implement.
     */
    static Status parseIo(Request req) {
        if (fctype(req.sqe()) == FCTYPE_DISCONNECT) {
            req.prepared(FabricsCommands::disconnect, DataDirection.NONE, 0);
            return Status.SUCCESS;
        }
        if (fctype(req.sqe()) == FabricsCommandType.AUTH_SEND.value()) {
            return AuthenticationCommands.parseSend(req);
        }
        if (fctype(req.sqe()) == FabricsCommandType.AUTH_RECEIVE.value()) {
            return AuthenticationCommands.parseReceive(req);
        }
        LOG.log(Level.DEBUG, "unknown fabrics command type {0} on an I/O queue", fctype(req.sqe()));
        req.errorLocation(OFFSET_FCTYPE);
        return StatusCode.INVALID_OPCODE.withDnr();
    }


    private static int recfmt(Request req) {
        return Wire.u16(req.sqe().segment(), OFFSET_CONNECT_RECFMT);
    }

    /** nvmet_execute_admin_connect(): a new controller with a dynamic controller ID. */
    private static Status adminConnect(Request req) {
        Status length = Transfers.checkLength(req, CONNECT_DATA_SIZE);
        if (!length.isSuccess()) {
            return length;
        }
        MemorySegment d = req.data();
        req.cqe().result(0);
        SubmissionQueue sq = req.queue();
        if (recfmt(req) != 0) {
            refused(req, "Connect with record format {0} refused", recfmt(req));
            req.errorLocation(OFFSET_CONNECT_RECFMT);
            return StatusCode.CONNECT_FORMAT.withDnr();
        }
        int cntlid = Wire.u16(d, OFFSET_DATA_CNTLID);
        if (cntlid != 0xFFFF) {
            refused(req, "admin Connect for controller ID {0} refused: only the dynamic model (FFFFh)",
                    cntlid);
            req.cqe().dw0(ipoConnectData(OFFSET_DATA_CNTLID));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        String subsysNqn = nqnField(d, OFFSET_DATA_SUBNQN);
        String hostNqn = hostNqnField(d);
        // nvmet_alloc_ctrl()
        Subsystem subsystem = subsysNqn == null ? null : sq.target().findSubsystem(sq.port(), subsysNqn);
        if (subsystem == null) {
            refused(req, "rejected host {0} for {1}: no such subsystem on {2}", hostNqn, subsysNqn,
                    sq.port());
            req.cqe().dw0(ipoConnectData(OFFSET_DATA_SUBNQN));
            req.errorLocation(SubmissionQueueEntry.OFFSET_DPTR);
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        if (hostNqn == null) {
            // no NUL within the field, too long or not UTF-8: an invalid parameter of the Connect data, as SPDK's
            // nvmf_ctrlr_cmd_connect() answers "Connect HOSTNQN is not null terminated" (nvmet cannot see one: it
            // writes a NUL into the last byte)
            refused(req, "rejected host for {0}: HOSTNQN is not a terminated UTF-8 name", subsystem.nqn());
            req.cqe().dw0(ipoConnectData(OFFSET_DATA_HOSTNQN));
            req.errorLocation(SubmissionQueueEntry.OFFSET_DPTR);
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        if (!subsystem.hostAllowed(hostNqn)) {
            refused(req, "rejected host {0} for {1}: not in allowed_hosts", shown(hostNqn), subsystem.nqn());
            req.cqe().dw0(ipoConnectData(OFFSET_DATA_HOSTNQN));
            req.errorLocation(SubmissionQueueEntry.OFFSET_DPTR);
            return StatusCode.CONNECT_INVALID_HOST.withDnr();
        }
        int sqsize = Wire.u16(req.sqe().segment(), OFFSET_CONNECT_SQSIZE);
        long kato = Wire.u32(req.sqe().segment(), OFFSET_CONNECT_KATO);
        byte[] hostId = d.asSlice(OFFSET_DATA_HOSTID, 16).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        // keys taken now for the controller's life, like nvmet_setup_auth() copies them at Connect
        io.nvmf4j.protocol.auth.DhchapKeys keys = subsystem.hostKeys(hostNqn).orElse(null);
        Controller ctrl = subsystem.registerController(
                id -> new Controller(sq.target(), subsystem, sq.port(), id, hostNqn, hostId, kato));
        if (ctrl == null) {
            refused(req, "rejected host {0} for {1}: no free controller ID (controller busy)", hostNqn,
                    subsystem.nqn());
            return StatusCode.CONNECT_CTRL_BUSY.withDnr();
        }
        Status installed = install(req, ctrl, 0, sqsize);
        if (!installed.isSuccess()) {
            subsystem.unregisterController(ctrl);
            return installed;
        }
        ctrl.dhchapKeys(keys);
        if (keys != null) {
            sq.requireAuthentication(keys);
        }
        ctrl.startKeepAlive();
        LOG.log(Level.INFO, "created {0} controller {1} for subsystem {2} for host {3} on {4}{5}",
                subsystem.isDiscovery() ? "discovery" : "NVM", ctrl.id(), subsystem.nqn(), hostNqn, sq.port(),
                keys != null ? " (DH-HMAC-CHAP required)" : "");
        // AUTHREQ.ATR when the host has a key (nvmet_connect_result())
        req.cqe().dw0(ConnectResponse.success(ControllerId.of(ctrl.id()), keys != null));
        return Status.SUCCESS;
    }

    /** nvmet_execute_io_connect(): an I/O queue for an existing controller of the same host. */
    private static Status ioConnect(Request req) {
        Status length = Transfers.checkLength(req, CONNECT_DATA_SIZE);
        if (!length.isSuccess()) {
            return length;
        }
        MemorySegment d = req.data();
        req.cqe().result(0);
        SubmissionQueue sq = req.queue();
        if (recfmt(req) != 0) {
            refused(req, "Connect with record format {0} refused", recfmt(req));
            req.errorLocation(OFFSET_CONNECT_RECFMT);
            return StatusCode.CONNECT_FORMAT.withDnr();
        }
        String subsysNqn = nqnField(d, OFFSET_DATA_SUBNQN);
        String hostNqn = hostNqnField(d);
        int cntlid = Wire.u16(d, OFFSET_DATA_CNTLID);
        // nvmet_ctrl_find_get()
        Subsystem subsystem = subsysNqn == null ? null : sq.target().findSubsystem(sq.port(), subsysNqn);
        if (subsystem == null) {
            refused(req, "I/O Connect from {0} for unknown subsystem {1} refused", hostNqn, subsysNqn);
            req.cqe().dw0(ipoConnectData(OFFSET_DATA_SUBNQN));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        Controller ctrl = subsystem.controller(cntlid);
        if (ctrl == null || !ctrl.hostNqn().equals(hostNqn) || ctrl.isReleased()) {
            refused(req, "could not find controller {0} for subsystem {1} / host {2}", cntlid,
                    subsystem.nqn(), hostNqn);
            req.cqe().dw0(ipoConnectData(OFFSET_DATA_CNTLID));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        // Beyond nvmet_ctrl_find_get() (subsystem, CNTLID, host NQN): none of these is a secret (the discovery log
        // names the subsystem, CNTLIDs count up), so an I/O queue must also carry the Host Identifier of the admin
        // Connect (NVMe-oF 1.1, 3.3: the same HOSTID on every queue of an association; nvmet keeps it as
        // ctrl->hostid) and come from the admin queue's peer address. Real protection is DH-HMAC-CHAP.
        byte[] hostId = d.asSlice(OFFSET_DATA_HOSTID, 16).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        if (!ctrl.hostIdMatches(hostId)) {
            refused(req, "I/O Connect for controller {0} of {1} from {2} refused: Host Identifier differs "
                    + "from the admin queue''s", cntlid, subsystem.nqn(), sq.transport().remoteAddress());
            req.cqe().dw0(ipoConnectData(OFFSET_DATA_HOSTID));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        SubmissionQueue admin = ctrl.queue(0);
        String adminPeer = admin == null ? null : admin.transport().remoteAddress();
        String ioPeer = sq.transport().remoteAddress();
        if (adminPeer != null && ioPeer != null && !adminPeer.equals(ioPeer)) {
            refused(req, "I/O Connect for controller {0} of {1} from {2} refused: its admin queue is "
                    + "connected from {3}", cntlid, subsystem.nqn(), ioPeer, adminPeer);
            req.cqe().dw0(ipoConnectData(OFFSET_DATA_CNTLID));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        int qid = Wire.u16(req.sqe().segment(), OFFSET_CONNECT_QID);
        if (qid > subsystem.maxIoQueues()) {
            refused(req, "I/O Connect for queue {0} beyond {1} refused", qid, subsystem.maxIoQueues());
            req.cqe().dw0(ipoConnectSqe(OFFSET_CONNECT_QID));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        int sqsize = Wire.u16(req.sqe().segment(), OFFSET_CONNECT_SQSIZE);
        Status installed = install(req, ctrl, qid, sqsize);
        if (!installed.isSuccess()) {
            // pass back the controller whose queue could not be installed, like nvmet
            if (req.cqe().dw0() == 0) {
                req.cqe().dw0(ctrl.id());
            }
            return installed;
        }
        io.nvmf4j.protocol.auth.DhchapKeys keys = ctrl.dhchapKeys();
        if (keys != null) {
            sq.requireAuthentication(keys);
            req.cqe().dw0(ConnectResponse.AUTHREQ_ATR);
        }
        LOG.log(Level.INFO, "added queue {0} to controller {1} of {2}", qid, ctrl.id(), subsystem.nqn());
        return Status.SUCCESS;
    }

    /** nvmet_install_queue(): SQSIZE checks, the QID free on the controller, the transport queue unbound. */
    private static Status install(Request req, Controller ctrl, int qid, int sqsize) {
        if (sqsize == 0) {
            refused(req, "Connect with queue size zero refused");
            req.errorLocation(OFFSET_CONNECT_SQSIZE);
            req.cqe().dw0(ipoConnectSqe(OFFSET_CONNECT_SQSIZE));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        if (ctrl.queue(qid) != null) {
            refused(req, "queue {0} of controller {1} already exists", qid, ctrl.id());
            req.errorLocation(OFFSET_CONNECT_QID);
            return StatusCode.CMD_SEQ_ERROR.withDnr();
        }
        // for fabrics, MQES limits only the I/O submission queues
        if (qid != 0 && sqsize > ctrl.mqes()) {
            refused(req, "SQSIZE {0} larger than MQES {1} of controller {2}", sqsize, ctrl.mqes(),
                    ctrl.id());
            req.errorLocation(OFFSET_CONNECT_SQSIZE);
            req.cqe().dw0(ipoConnectSqe(OFFSET_CONNECT_SQSIZE));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        SubmissionQueue sq = req.queue();
        if (!ctrl.addQueue(qid, sq)) {
            req.errorLocation(OFFSET_CONNECT_QID);
            return StatusCode.CMD_SEQ_ERROR.withDnr();
        }
        if (!sq.install(ctrl, qid, sqsize + 1)) {
            ctrl.queueDestroyed(sq);
            refused(req, "queue already connected");
            req.errorLocation(SubmissionQueueEntry.OFFSET_OPCODE);
            return StatusCode.CONNECT_CTRL_BUSY.withDnr();
        }
        return Status.SUCCESS;
    }

    /**
     * The Connect data HOSTNQN: an empty field (first byte NUL) is the empty host NQN, not a malformed one. Linux
     * nvmet compares it with {@code strcmp} in nvmet_host_allowed(), so an empty name connects wherever
     * allow_any_host is set and nowhere else; SPDK's nvmf_ctrlr_cmd_connect() asks only that the field be
     * NUL-terminated, then spdk_nvmf_subsystem_host_allowed() lets any host in. SPDK's own initiator tools
     * ({@code spdk_nvme_perf}, {@code spdk_nvme_identify}) send it when no {@code hostnqn:} is given.
     */
    private static String hostNqnField(MemorySegment data) {
        if (Wire.u8(data, OFFSET_DATA_HOSTNQN) == 0) {
            return "";
        }
        return nqnField(data, OFFSET_DATA_HOSTNQN);
    }

    /** A host NQN for a log line: the empty one shown as such. */
    private static String shown(String hostNqn) {
        return hostNqn != null && hostNqn.isEmpty() ? "\"\" (empty)" : hostNqn;
    }

    /** The text of a 256-byte NQN field, or null when it is not a terminated UTF-8 string. */
    private static String nqnField(MemorySegment data, int offset) {
        try {
            return Nqn.readField(data.asSlice(offset, Nqn.FIELD_SIZE));
        } catch (MalformedStructureException e) {
            LOG.log(Level.DEBUG, "unusable NQN field at {0}: {1}", offset, e.getMessage());
            return null;
        }
    }

    /** nvmet_execute_prop_set(): only CC, 4 bytes. */
    private static Status propertySet(Request req) {
        SubmissionQueueEntry sqe = req.sqe();
        int attrib = Wire.u8(sqe.segment(), OFFSET_PROPERTY_ATTRIB);
        long offset = Wire.u32(sqe.segment(), OFFSET_PROPERTY_OFFSET);
        if ((attrib & 1) != 0 || offset != Controller.REG_CC) {
            req.errorLocation((attrib & 1) != 0 ? OFFSET_PROPERTY_ATTRIB : OFFSET_PROPERTY_OFFSET);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        req.queue().controller().updateCc((int) Wire.u64(sqe.segment(), OFFSET_PROPERTY_VALUE));
        return Status.SUCCESS;
    }

    /** nvmet_execute_prop_get(): CAP as 8 bytes; VS, CC, CSTS as 4 bytes. */
    private static Status propertyGet(Request req) {
        SubmissionQueueEntry sqe = req.sqe();
        Controller ctrl = req.queue().controller();
        int attrib = Wire.u8(sqe.segment(), OFFSET_PROPERTY_ATTRIB);
        long offset = Wire.u32(sqe.segment(), OFFSET_PROPERTY_OFFSET);
        long value;
        if ((attrib & 1) != 0) {
            if (offset != Controller.REG_CAP) {
                req.errorLocation(OFFSET_PROPERTY_OFFSET);
                return StatusCode.INVALID_FIELD.withDnr();
            }
            value = ctrl.cap();
        } else {
            if (offset == Controller.REG_VS) {
                value = ctrl.subsystem().version();
            } else if (offset == Controller.REG_CC) {
                value = Integer.toUnsignedLong(ctrl.cc());
            } else if (offset == Controller.REG_CSTS) {
                value = Integer.toUnsignedLong(ctrl.csts());
            } else {
                req.errorLocation(OFFSET_PROPERTY_OFFSET);
                return StatusCode.INVALID_FIELD.withDnr();
            }
        }
        req.cqe().result(value);
        return Status.SUCCESS;
    }

    /** Disconnect (NVMe-oF 1.1, 3.4): success, then the transport closes this I/O queue. */
    private static Status disconnect(Request req) {
        SubmissionQueue sq = req.queue();
        LOG.log(Level.INFO, "host {0} disconnects queue {1} of controller {2}", sq.controller().hostNqn(),
                sq.qid().value(), sq.controller().id());
        req.disconnectAfterResponse(true);
        return Status.SUCCESS;
    }
}
