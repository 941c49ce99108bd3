package io.nvmf4j.target;

import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.StatusCodeType;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.fabrics.ConnectCommand;
import io.nvmf4j.protocol.fabrics.ConnectData;
import io.nvmf4j.protocol.fabrics.ConnectResponse;
import io.nvmf4j.protocol.fabrics.FabricsCommand;
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

    /**
     * FCTYPE's byte offset, for the error location of a refused fabrics command (and for the authentication code that
     * still reads it by offset).
     */
    static final int OFFSET_FCTYPE = FabricsCommand.OFFSET_FCTYPE;

    /** NVMe-oF 1.1 Figure 23: Disconnect sent on the admin queue (SPDK "invalid queue type"); not in the catalogue. */
    static final Status INVALID_QUEUE_TYPE = Status.of(StatusCodeType.COMMAND_SPECIFIC, 0x85).withDnr();

    private FabricsCommands() {
    }

    static boolean isFabrics(SubmissionQueueEntry sqe) {
        return sqe.opcode() == FabricsCommandType.OPCODE;
    }

    static int fctype(SubmissionQueueEntry sqe) {
        return FabricsCommand.fctypeOf(sqe);
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
        if (fctype(sqe) != FabricsCommandType.CONNECT.value()) {
            LOG.log(Level.DEBUG, "invalid capsule type {0} on unconnected queue", fctype(sqe));
            req.errorLocation(OFFSET_FCTYPE);
            return StatusCode.INVALID_OPCODE.withDnr();
        }
        int qid = ConnectCommand.qidOf(sqe);
        int transportQid = req.queue().transport().connectionQid();
        if (transportQid >= 0 && qid != transportQid) {
            // The transport sized and set up this connection for another queue (NVMe-oF RDMA binding: the QID of
            // the RDMA_CM request private data is the queue the connection carries). Linux nvmet-rdma keeps it as
            // queue->host_qid (nvmet_rdma_queue_connect) but uses it only for sizing, so a connection set up as an
            // I/O queue could become an admin queue; refused here before any data is fetched, with the status and
            // IATTR/IPO nvmet_execute_io_connect() gives a QID it cannot accept (IPO_IATTR_CONNECT_SQE(qid)).
            refused(req, "Connect for queue {0} on a connection set up for queue {1} refused", qid,
                    transportQid);
            req.errorLocation(ConnectCommand.OFFSET_QID);
            req.cqe().dw0(ipoConnectSqe(ConnectCommand.OFFSET_QID));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        req.prepared(qid == 0 ? FabricsCommands::adminConnect : FabricsCommands::ioConnect,
                DataDirection.HOST_TO_CONTROLLER, ConnectData.SIZE);
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
        if (fctype(req.sqe()) == FabricsCommandType.DISCONNECT.value()) {
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
        return ConnectCommand.recfmtOf(req.sqe());
    }

    /**
     * What nvmet_execute_admin_connect() and nvmet_execute_io_connect() check first: the Connect data is all there
     * (1024 bytes) and the record format is 0 (NVMe-oF 1.1, 3.3); the result dword is
     * cleared for either answer.
     */
    private static Status checkConnect(Request req) {
        Status length = Transfers.checkLength(req, ConnectData.SIZE);
        if (!length.isSuccess()) {
            return length;
        }
        req.cqe().result(0);
        if (recfmt(req) != 0) {
            refused(req, "Connect with record format {0} refused", recfmt(req));
            req.errorLocation(ConnectCommand.OFFSET_RECFMT);
            return StatusCode.CONNECT_FORMAT.withDnr();
        }
        return Status.SUCCESS;
    }

    /** nvmet_execute_admin_connect(): a new controller with a dynamic controller ID. */
    private static Status adminConnect(Request req) {
        Status checked = checkConnect(req);
        if (!checked.isSuccess()) {
            return checked;
        }
        MemorySegment d = req.data();
        SubmissionQueue sq = req.queue();
        int cntlid = ConnectData.cntlidOf(d);
        if (cntlid != 0xFFFF) {
            refused(req, "admin Connect for controller ID {0} refused: only the dynamic model (FFFFh)",
                    cntlid);
            req.cqe().dw0(ipoConnectData(ConnectData.OFFSET_CNTLID));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        String subsysNqn = nqnField(d, ConnectData.OFFSET_SUBNQN);
        String hostNqn = hostNqnField(d);
        // nvmet_alloc_ctrl()
        Subsystem subsystem = subsysNqn == null ? null : sq.target().findSubsystem(sq.port(), subsysNqn);
        if (subsystem == null) {
            refused(req, "rejected host {0} for {1}: no such subsystem on {2}", hostNqn, subsysNqn,
                    sq.port());
            req.cqe().dw0(ipoConnectData(ConnectData.OFFSET_SUBNQN));
            req.errorLocation(SubmissionQueueEntry.OFFSET_DPTR);
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        if (hostNqn == null) {
            // no NUL within the field, too long or not UTF-8: an invalid parameter of the Connect data, as SPDK's
            // nvmf_ctrlr_cmd_connect() answers "Connect HOSTNQN is not null terminated" (nvmet cannot see one: it
            // writes a NUL into the last byte)
            refused(req, "rejected host for {0}: HOSTNQN is not a terminated UTF-8 name", subsystem.nqn());
            req.cqe().dw0(ipoConnectData(ConnectData.OFFSET_HOSTNQN));
            req.errorLocation(SubmissionQueueEntry.OFFSET_DPTR);
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        if (!subsystem.hostAllowed(hostNqn)) {
            refused(req, "rejected host {0} for {1}: not in allowed_hosts", shown(hostNqn), subsystem.nqn());
            req.cqe().dw0(ipoConnectData(ConnectData.OFFSET_HOSTNQN));
            req.errorLocation(SubmissionQueueEntry.OFFSET_DPTR);
            return StatusCode.CONNECT_INVALID_HOST.withDnr();
        }
        int sqsize = ConnectCommand.sqsizeOf(req.sqe());
        long kato = ConnectCommand.katoOf(req.sqe());
        byte[] hostId = d.asSlice(ConnectData.OFFSET_HOSTID, 16).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        // keys taken now for the controller's life, like nvmet_setup_auth() copies them at Connect
        DhchapKeys keys = subsystem.hostKeys(hostNqn).orElse(null);
        String[] overShare = new String[1];
        Controller ctrl = subsystem.registerController(
                id -> new Controller(sq.target(), subsystem, sq.port(), id, hostNqn, hostId, kato),
                hostNqn, sq.transport().remoteAddress(), sq.target().controllerShare(), overShare);
        if (ctrl == null && overShare[0] != null) {
            // as nvmet answers when it has no controller to give: Controller Busy, do not retry
            refused(req, ControllerShare.REFUSAL_PREFIX + "rejected host {0} for {1}: {2}", shown(hostNqn),
                    subsystem.nqn(), overShare[0]);
            return StatusCode.CONNECT_CTRL_BUSY.withDnr();
        }
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
            // The keep-alive timer starts when this queue authenticates (QueueAuthentication.afterStep): until
            // then the host may send nothing but Authentication Send/Receive, and Linux starts its keep-alive
            // work only once the controller is live, so a host whose DH work between Challenge and Reply takes
            // longer than KATO (ffdhe8192 and the kernel's first-use crypto self-test on a slow machine) would
            // be torn down mid-exchange. The authentication deadline bounds that time instead.
            sq.requireAuthentication(keys);
        } else {
            ctrl.startKeepAlive();
        }
        LOG.log(Level.INFO, "created {0} controller {1} for subsystem {2} for host {3} on {4}{5}",
                subsystem.isDiscovery() ? "discovery" : "NVM", ctrl.id(), subsystem.nqn(), hostNqn, sq.port(),
                keys != null ? " (DH-HMAC-CHAP required)" : "");
        // AUTHREQ.ATR when the host has a key (nvmet_connect_result())
        req.cqe().dw0(ConnectResponse.success(ControllerId.of(ctrl.id()), keys != null));
        return Status.SUCCESS;
    }

    /** nvmet_execute_io_connect(): an I/O queue for an existing controller of the same host. */
    private static Status ioConnect(Request req) {
        Status checked = checkConnect(req);
        if (!checked.isSuccess()) {
            return checked;
        }
        MemorySegment d = req.data();
        SubmissionQueue sq = req.queue();
        String subsysNqn = nqnField(d, ConnectData.OFFSET_SUBNQN);
        String hostNqn = hostNqnField(d);
        int cntlid = ConnectData.cntlidOf(d);
        // nvmet_ctrl_find_get()
        Subsystem subsystem = subsysNqn == null ? null : sq.target().findSubsystem(sq.port(), subsysNqn);
        if (subsystem == null) {
            refused(req, "I/O Connect from {0} for unknown subsystem {1} refused", hostNqn, subsysNqn);
            req.cqe().dw0(ipoConnectData(ConnectData.OFFSET_SUBNQN));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        Controller ctrl = subsystem.controller(cntlid);
        if (ctrl == null || !ctrl.hostNqn().equals(hostNqn) || ctrl.isReleased()) {
            refused(req, "could not find controller {0} for subsystem {1} / host {2}", cntlid,
                    subsystem.nqn(), hostNqn);
            req.cqe().dw0(ipoConnectData(ConnectData.OFFSET_CNTLID));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        // Beyond nvmet_ctrl_find_get() (subsystem, CNTLID, host NQN): none of these is a secret (the discovery log
        // names the subsystem, CNTLIDs count up), so an I/O queue must also carry the Host Identifier of the admin
        // Connect (NVMe-oF 1.1, 3.3: the same HOSTID on every queue of an association; nvmet keeps it as
        // ctrl->hostid) and come from the admin queue's peer address. Real protection is DH-HMAC-CHAP.
        byte[] hostId = d.asSlice(ConnectData.OFFSET_HOSTID, 16).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        if (!ctrl.hostIdMatches(hostId)) {
            refused(req, "I/O Connect for controller {0} of {1} from {2} refused: Host Identifier differs "
                    + "from the admin queue''s", cntlid, subsystem.nqn(), sq.transport().remoteAddress());
            req.cqe().dw0(ipoConnectData(ConnectData.OFFSET_HOSTID));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        SubmissionQueue admin = ctrl.queue(0);
        String adminPeer = admin == null ? null : admin.transport().remoteAddress();
        String ioPeer = sq.transport().remoteAddress();
        if (adminPeer != null && ioPeer != null && !adminPeer.equals(ioPeer)) {
            refused(req, "I/O Connect for controller {0} of {1} from {2} refused: its admin queue is "
                    + "connected from {3}", cntlid, subsystem.nqn(), ioPeer, adminPeer);
            req.cqe().dw0(ipoConnectData(ConnectData.OFFSET_CNTLID));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        int qid = ConnectCommand.qidOf(req.sqe());
        if (qid > subsystem.maxIoQueues()) {
            refused(req, "I/O Connect for queue {0} beyond {1} refused", qid, subsystem.maxIoQueues());
            req.cqe().dw0(ipoConnectSqe(ConnectCommand.OFFSET_QID));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        int sqsize = ConnectCommand.sqsizeOf(req.sqe());
        Status installed = install(req, ctrl, qid, sqsize);
        if (!installed.isSuccess()) {
            // pass back the controller whose queue could not be installed, like nvmet
            if (req.cqe().dw0() == 0) {
                req.cqe().dw0(ctrl.id());
            }
            return installed;
        }
        DhchapKeys keys = ctrl.dhchapKeys();
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
            req.errorLocation(ConnectCommand.OFFSET_SQSIZE);
            req.cqe().dw0(ipoConnectSqe(ConnectCommand.OFFSET_SQSIZE));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        if (ctrl.queue(qid) != null) {
            refused(req, "queue {0} of controller {1} already exists", qid, ctrl.id());
            req.errorLocation(ConnectCommand.OFFSET_QID);
            return StatusCode.CMD_SEQ_ERROR.withDnr();
        }
        // for fabrics, MQES limits only the I/O submission queues
        if (qid != 0 && sqsize > ctrl.mqes()) {
            refused(req, "SQSIZE {0} larger than MQES {1} of controller {2}", sqsize, ctrl.mqes(),
                    ctrl.id());
            req.errorLocation(ConnectCommand.OFFSET_SQSIZE);
            req.cqe().dw0(ipoConnectSqe(ConnectCommand.OFFSET_SQSIZE));
            return StatusCode.CONNECT_INVALID_PARAM.withDnr();
        }
        SubmissionQueue sq = req.queue();
        if (!ctrl.addQueue(qid, sq)) {
            req.errorLocation(ConnectCommand.OFFSET_QID);
            return StatusCode.CMD_SEQ_ERROR.withDnr();
        }
        if (!sq.install(ctrl, qid, sqsize + 1)) {
            ctrl.queueDestroyed(sq);
            refused(req, "queue already connected");
            req.errorLocation(SubmissionQueueEntry.OFFSET_OPCODE);
            return StatusCode.CONNECT_CTRL_BUSY.withDnr();
        }
        if ((ConnectCommand.cattrOf(req.sqe()) & ConnectCommand.CATTR_DISABLE_SQ_FLOW_CONTROL) != 0) {
            sq.disableSqFlowControl();
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
        if (ConnectData.hostNqnEmpty(data)) {
            return "";
        }
        return nqnField(data, ConnectData.OFFSET_HOSTNQN);
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
        int attrib = PropertySetCommand.attribOf(sqe);
        long offset = PropertySetCommand.ofstOf(sqe);
        if ((attrib & 1) != 0 || offset != Controller.REG_CC) {
            req.errorLocation((attrib & 1) != 0 ? PropertySetCommand.OFFSET_ATTRIB : PropertySetCommand.OFFSET_OFST);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        req.queue().controller().updateCc((int) PropertySetCommand.propertyValueOf(sqe));
        return Status.SUCCESS;
    }

    /** nvmet_execute_prop_get(): CAP as 8 bytes; VS, CC, CSTS as 4 bytes. */
    private static Status propertyGet(Request req) {
        SubmissionQueueEntry sqe = req.sqe();
        Controller ctrl = req.queue().controller();
        int attrib = PropertyGetCommand.attribOf(sqe);
        long offset = PropertyGetCommand.ofstOf(sqe);
        long value;
        if ((attrib & 1) != 0) {
            if (offset != Controller.REG_CAP) {
                req.errorLocation(PropertyGetCommand.OFFSET_OFST);
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
                req.errorLocation(PropertyGetCommand.OFFSET_OFST);
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
