package io.nvmf4j.target;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.AdminOpcode;
import io.nvmf4j.protocol.admin.FeatureId;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.log.DiscoveryLogPage;
import io.nvmf4j.protocol.log.LogPageId;
import io.nvmf4j.protocol.rdma.RdmaCms;
import io.nvmf4j.protocol.rdma.RdmaProviderType;
import io.nvmf4j.protocol.rdma.RdmaQpType;
import io.nvmf4j.protocol.rdma.RdmaTsas;
import io.nvmf4j.protocol.tcp.TcpTsas;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The admin commands of a discovery controller (Linux {@code discovery.c}): Identify Controller, Get Log Page
 * 70h, Get/Set Features (Keep Alive Timer and Asynchronous Event Configuration only), Keep Alive and
 * Asynchronous Event Request; anything else, or anything before CSTS.RDY, is an invalid opcode.
 */
final class DiscoveryCommands {

    private static final System.Logger LOG = System.getLogger(DiscoveryCommands.class.getName());

    private DiscoveryCommands() {
    }

    /** nvmet_parse_discovery_cmd(). */
    static Status parse(Request req) {
        SubmissionQueueEntry sqe = req.sqe();
        Controller ctrl = req.queue().controller();
        if (!ctrl.isReady()) {
            LOG.log(Level.DEBUG, "discovery command {0} while not ready", sqe.opcode());
            req.errorLocation(SubmissionQueueEntry.OFFSET_OPCODE);
            return StatusCode.INVALID_OPCODE.withDnr();
        }
        int opcode = sqe.opcode();
        DataDirection direction = DataDirection.ofOpcode(opcode);
        if (opcode == AdminOpcode.SET_FEATURES.code()) {
            // no data either way (nvmet_execute_disc_set_features() / _get_features(): nvmet_check_transfer_len(0))
            req.prepared(DiscoveryCommands::setFeatures, direction, 0);
        } else if (opcode == AdminOpcode.GET_FEATURES.code()) {
            req.prepared(DiscoveryCommands::getFeatures, direction, 0);
        } else if (opcode == AdminOpcode.ASYNC_EVENT_REQUEST.code()) {
            req.prepared(AdminCommands::asyncEventRequest, direction, 0);
        } else if (opcode == AdminOpcode.KEEP_ALIVE.code()) {
            req.prepared(AdminCommands::keepAlive, direction, 0);
        } else if (opcode == AdminOpcode.GET_LOG_PAGE.code()) {
            req.prepared(DiscoveryCommands::getLogPage, direction, GetLogPageCommand.wrap(sqe).lengthBytes());
        } else if (opcode == AdminOpcode.IDENTIFY.code()) {
            req.prepared(DiscoveryCommands::identify, direction, IdentifyCommand.DATA_LENGTH);
        } else {
            return AdminCommands.invalidOpcode(req);
        }
        return Status.SUCCESS;
    }

    /** nvmet_execute_disc_identify(): only CNS 01h. */
    private static Status identify(Request req) {
        Status s = Transfers.checkLength(req, IdentifyCommand.DATA_LENGTH);
        if (!s.isSuccess()) {
            return s;
        }
        if (IdentifyCommand.wrap(req.sqe()).cns() != IdentifyCommand.CNS_CONTROLLER) {
            // Invalid Field at CNS, as nvmet_execute_disc_identify() in Linux 6.1 (older kernels: Invalid Opcode)
            req.errorLocation(IdentifyCommand.OFFSET_CNS);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        IdentifyController id = IdentifyHandlers.commonControllerData(req);
        id.cntrltype(IdentifyHandlers.CNTRLTYPE_DISCOVERY)
                .mdts(0)
                .lpa(1 << 2)
                .oaes(IdentifyHandlers.OAES_DISCOVERY_CHANGE);
        return Status.SUCCESS;
    }

    private static Status getFeatures(Request req) {
        Status s = Transfers.checkLength(req, 0);
        if (!s.isSuccess()) {
            return s;
        }
        Controller ctrl = req.queue().controller();
        int fid = req.sqe().cdw10() & AdminCommands.FID_MASK;
        if (fid == FeatureId.KEEP_ALIVE_TIMER.code()) {
            req.cqe().dw0(ctrl.keepAliveTimeoutSeconds() * 1000);
        } else if (fid == FeatureId.ASYNC_EVENT_CONFIGURATION.code()) {
            req.cqe().dw0(ctrl.asyncEvents().enabled());
        } else {
            req.errorLocation(AdminCommands.OFFSET_CDW10);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        return Status.SUCCESS;
    }

    private static Status setFeatures(Request req) {
        Status s = Transfers.checkLength(req, 0);
        if (!s.isSuccess()) {
            return s;
        }
        Controller ctrl = req.queue().controller();
        int fid = req.sqe().cdw10() & AdminCommands.FID_MASK;
        if (fid == FeatureId.KEEP_ALIVE_TIMER.code()) {
            return AdminCommands.setKeepAliveTimer(req, ctrl);
        }
        if (fid == FeatureId.ASYNC_EVENT_CONFIGURATION.code()) {
            return AdminCommands.setAsyncEventConfiguration(req, ctrl, AsyncEvents.AEN_DISCOVERY_CHANGE);
        }
        req.errorLocation(AdminCommands.OFFSET_CDW10);
        return StatusCode.INVALID_FIELD.withDnr();
    }

    /**
     * nvmet_execute_disc_get_log_page(): the header (GENCTR, NUMREC, RECFMT 0), an entry for this discovery
     * subsystem (subtype 3, "current discovery subsystem"), then one per subsystem on this port that the host may
     * connect to (subtype 2). Served from the dword-aligned log page offset; bytes beyond the page read as zero.
     */
    private static Status getLogPage(Request req) {
        GetLogPageCommand cmd = GetLogPageCommand.wrap(req.sqe());
        Status s = Transfers.checkLength(req, cmd.lengthBytes());
        if (!s.isSuccess()) {
            return s;
        }
        if (cmd.lid() != LogPageId.DISCOVERY.code()) {
            req.errorLocation(GetLogPageCommand.OFFSET_LID);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        long offset = cmd.offset();
        if ((offset & 3) != 0) {
            req.errorLocation(GetLogPageCommand.OFFSET_LPO);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        Controller ctrl = req.queue().controller();
        SubmissionQueue sq = req.queue();
        MemorySegment page = buildLogPage(sq.target(), sq.port(), ctrl.hostNqn(), sq.transport().localAddress());
        // LPO is a 64-bit unsigned peer value: compared unsigned (2^63 and up are not negative offsets). An offset
        // beyond the page is Invalid Field (NVMe Base 2.0, 5.16 Get Log Page, LPOL/LPOU), checked like
        // nvmet_execute_disc_get_log_page() before anything is copied
        if (Long.compareUnsigned(offset, page.byteSize()) > 0) {
            req.errorLocation(GetLogPageCommand.OFFSET_LPO);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        MemorySegment out = req.data();
        out.fill((byte) 0);
        long n = Math.min(out.byteSize(), page.byteSize() - offset);
        if (n > 0) {
            MemorySegment.copy(page, offset, out, 0, n);
        }
        ctrl.asyncEvents().clearMask(AsyncEvents.AEN_DISCOVERY_CHANGE, cmd.rae());
        return Status.SUCCESS;
    }

    /** The whole discovery log page for {@code hostNqn} connected through {@code port}. */
    static MemorySegment buildLogPage(NvmeTarget target, Port port, String hostNqn, String localAddress) {
        List<Subsystem> visible = new ArrayList<>();
        for (Subsystem s : port.subsystems()) {
            if (!s.isDiscovery() && s.hostAllowed(hostNqn)) {
                visible.add(s);
            }
        }
        List<Port.Referral> referrals = port.referrals();
        int records = visible.size() + 1 + referrals.size();
        DiscoveryLogPage page = DiscoveryLogPage.allocate(records);
        page.numrec(records);
        String traddr = discoveryAddress(port, localAddress);
        int index = 0;
        fill(page.entry(index++), port, traddr, target.discoverySubsystem(),
                DiscoveryLogEntry.SUBTYPE_CURRENT_DISCOVERY);
        for (Subsystem s : visible) {
            fill(page.entry(index++), port, traddr, s, DiscoveryLogEntry.SUBTYPE_NVME);
        }
        for (Port.Referral r : referrals) {
            referral(page.entry(index++), r);
        }
        page.genctr(target.discoveryGeneration()).recfmt(DiscoveryLogPage.RECFMT_0);
        return page.segment();
    }

    /** nvmet_set_disc_traddr(): a wildcard port address is replaced by the address the host reached. */
    static String discoveryAddress(Port port, String localAddress) {
        String traddr = port.traddr();
        boolean wildcard = traddr.equals("0.0.0.0") || traddr.equals("::") || traddr.isEmpty();
        return wildcard && localAddress != null ? localAddress : traddr;
    }

    /**
     * nvmet_format_discovery_entry() for a referral: subtype 1 (a discovery service), the discovery NQN, the
     * referral's own address and port ID; the RDMA TSAS as for our ports when the referral is RDMA.
     */
    private static void referral(DiscoveryLogEntry e, Port.Referral r) {
        e.trtype(r.trtype())
                .adrfam(r.adrfam())
                .subtype(DiscoveryLogEntry.SUBTYPE_REFERRAL)
                .treq(r.treq())
                .portId(r.portId())
                .cntlid(DiscoveryLogEntry.CNTLID_DYNAMIC)
                .asqsz(Port.ADMIN_QUEUE_DEPTH)
                .trsvcid(r.trsvcid())
                .traddr(r.traddr());
        Nqn.writeField(e.segment().asSlice(DiscoveryLogEntry.OFFSET_SUBNQN, DiscoveryLogEntry.SUBNQN_LENGTH),
                Nqn.DISCOVERY_VALUE);
        if (r.trtype() == DiscoveryLogEntry.TRTYPE_RDMA) {
            e.rdmaTsas(RdmaTsas.of(RdmaQpType.RELIABLE_CONNECTED, RdmaProviderType.NOT_SPECIFIED, RdmaCms.RDMA_CM, 0));
        } else if (r.trtype() == DiscoveryLogEntry.TRTYPE_TCP) {
            e.tcpTsas(TcpTsas.none());
        }
    }

    /** nvmet_format_discovery_entry(): dynamic controllers only, ASQSZ 32, the port's RDMA or TCP TSAS. */
    private static void fill(DiscoveryLogEntry e, Port port, String traddr, Subsystem subsystem, int subtype) {
        e.trtype(port.trtype())
                .adrfam(port.adrfam())
                .subtype(subtype)
                .treq(port.treq())
                .portId(port.portId())
                .cntlid(DiscoveryLogEntry.CNTLID_DYNAMIC)
                .asqsz(Port.ADMIN_QUEUE_DEPTH)
                .trsvcid(port.trsvcid())
                .traddr(traddr);
        Nqn.writeField(e.segment().asSlice(DiscoveryLogEntry.OFFSET_SUBNQN, DiscoveryLogEntry.SUBNQN_LENGTH),
                subsystem.nqn().value());
        if (port.trtype() == DiscoveryLogEntry.TRTYPE_RDMA) {
            e.rdmaTsas(RdmaTsas.of(RdmaQpType.RELIABLE_CONNECTED, port.rdmaProviderType(), RdmaCms.RDMA_CM, 0));
        } else if (port.trtype() == DiscoveryLogEntry.TRTYPE_TCP) {
            e.tcpTsas(TcpTsas.none());
        }
    }
}
