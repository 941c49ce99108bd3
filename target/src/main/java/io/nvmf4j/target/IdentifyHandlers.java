package io.nvmf4j.target;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.ActiveNamespaceList;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.admin.LbaFormat;
import io.nvmf4j.protocol.admin.NamespaceDescriptor;
import io.nvmf4j.protocol.admin.NamespaceDescriptorList;
import io.nvmf4j.protocol.admin.PowerStateDescriptor;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Identify (admin opcode 06h) for NVM controllers, CNS 00h-03h and 06h, as nvmet_execute_identify() and its
 * helpers in Linux {@code admin-cmd.c} fill them, 05h and 08h in {@link CommandSetIdentify}; any other CNS is an
 * Invalid Field (DNR) at CNS (nvmet_req_cns_error_complete()). The discovery controller's Identify is in
 * {@link DiscoveryCommands}.
 */
final class IdentifyHandlers {

    /** OAES bit 8: Namespace Attribute Notices. */
    static final int OAES_NS_ATTRIBUTE = 1 << 8;
    /** OAES bit 31: Discovery Log Page Change Notices. */
    static final int OAES_DISCOVERY_CHANGE = 1 << 31;
    /** CTRATT bit 0: 128-bit host identifier; bit 6: traffic based keep alive. */
    static final int CTRATT_HID_128_BIT_TBKAS = 1 | 1 << 6;
    /**
     * LPA bit 0: SMART per namespace; bit 1: Commands Supported and Effects log page; bit 2: extended data for Get
     * Log Page (LPO). nvmet's value ({@code id->lpa = (1 << 0) | (1 << 1) | (1 << 2)}).
     */
    static final int LPA_SMART_PER_NS_EXTENDED = 1 | 1 << 1 | 1 << 2;
    /** KAS: keep-alive granularity in 100 ms units; the timer works in seconds (NVMET_KAS). */
    static final int KAS_ONE_SECOND = 10;
    static final int CNTRLTYPE_IO = 1;
    static final int CNTRLTYPE_DISCOVERY = 2;
    /** NSATTR bit 0: the namespace is write protected (feature 84h). */
    static final int NSATTR_WRITE_PROTECTED = 1;
    /** NWPC bit 0: no write protect and write protect states of the Namespace Write Protection Config feature. */
    static final int NWPC_WRITE_PROTECT = 1;
    /** NMIC bit 0: the namespace may be shared by controllers. */
    static final int NMIC_SHARED = 1;

    /** CNS 06h: I/O Command Set specific Identify Controller (a host asks for it when VS is 2.0 or later). */
    static final int CNS_IO_COMMAND_SET_CONTROLLER = 0x06;
    /** Command Set Identifier of the NVM command set. */
    static final int CSI_NVM = 0;

    private IdentifyHandlers() {
    }

    static Status identify(Request req) {
        Status s = Transfers.checkLength(req, IdentifyCommand.DATA_LENGTH);
        if (!s.isSuccess()) {
            return s;
        }
        IdentifyCommand cmd = IdentifyCommand.wrap(req.sqe());
        return switch (cmd.cns()) {
            case IdentifyCommand.CNS_NAMESPACE -> identifyNamespace(req, cmd);
            case IdentifyCommand.CNS_CONTROLLER -> identifyController(req);
            case IdentifyCommand.CNS_ACTIVE_NAMESPACE_LIST -> activeNamespaceList(req, cmd);
            case IdentifyCommand.CNS_NAMESPACE_DESCRIPTOR_LIST -> namespaceDescriptors(req, cmd);
            case CNS_IO_COMMAND_SET_CONTROLLER -> ioCommandSetController(req, cmd);
            case CommandSetIdentify.CNS_IO_COMMAND_SET_NAMESPACE -> CommandSetIdentify.ioCommandSetNamespace(req, cmd);
            case CommandSetIdentify.CNS_NAMESPACE_INDEPENDENT -> CommandSetIdentify.namespaceIndependent(req, cmd);
            default -> {
                req.errorLocation(IdentifyCommand.OFFSET_CNS);
                yield StatusCode.INVALID_FIELD.withDnr();
            }
        };
    }

    /** The Identify Controller fields common to NVM and discovery controllers. */
    static IdentifyController commonControllerData(Request req) {
        Controller ctrl = req.queue().controller();
        Subsystem subsys = ctrl.subsystem();
        Port port = req.queue().port();
        MemorySegment data = req.data();
        data.fill((byte) 0);
        IdentifyController id = IdentifyController.wrap(data);
        id.serialNumber(subsys.serial())
                .modelNumber(subsys.model())
                .firmwareRevision(subsys.firmwareRevision())
                .cntlid(ctrl.id())
                .ver(subsys.version())
                .maxcmd(port.maxQueueSize())
                .kas(KAS_ONE_SECOND)
                .sgls(sgls(port));
        // SUBNQN as text: nvmet allows names outside the NQN forms, so no Nqn validation here
        Nqn.writeField(data.asSlice(IdentifyController.OFFSET_SUBNQN, IdentifyController.SUBNQN_LENGTH),
                subsys.nqn().value());
        return id;
    }

    /**
     * SGLS: SGLs supported, keyed data block descriptors on RDMA ports only (nvmet sets them for a transport with
     * NVMF_KEYED_SGLS, which nvmet-tcp is not), offsets for in-capsule data when enabled.
     */
    static int sgls(Port port) {
        int sgls = IdentifyController.SGLS_SUPPORTED;
        if (port.trtype() == io.nvmf4j.protocol.log.DiscoveryLogEntry.TRTYPE_RDMA) {
            sgls |= IdentifyController.SGLS_KEYED;
        }
        if (port.inlineDataSize() > 0) {
            sgls |= IdentifyController.SGLS_OFFSET;
        }
        return sgls;
    }

    /** nvmet_execute_identify_ctrl(). */
    private static Status identifyController(Request req) {
        Controller ctrl = req.queue().controller();
        Port port = req.queue().port();
        IdentifyController id = commonControllerData(req);
        id.rab(6)
                .ieee(ctrl.subsystem().ieeeOui())
                .cmic(AnaHandlers.CMIC_MULTI_PORT_MULTI_CTRL_ANA)
                .mdts(port.mdts())
                .oaes(OAES_NS_ATTRIBUTE | AnaHandlers.OAES_ANA_CHANGE)
                .ctratt(CTRATT_HID_128_BIT_TBKAS)
                .cntrltype(CNTRLTYPE_IO)
                .acl(3)
                .aerl(AsyncEvents.MAX_OUTSTANDING - 1)
                .frmw(0x3) // slot 1 read-only, one slot
                .lpa(LPA_SMART_PER_NS_EXTENDED)
                .elpe(ErrorLog.SLOTS - 1)
                .npss(0)
                .anatt(AnaHandlers.ANATT_SECONDS)
                .anacap(AnaHandlers.ANACAP_ALL_STATES)
                .anagrpmax(Port.MAX_ANA_GROUPS)
                .nanagrpid(Port.MAX_ANA_GROUPS)
                .sqes(0x66)
                .cqes(0x44)
                .nn(Subsystem.MAX_NAMESPACES)
                .mnan(Subsystem.MAX_NAMESPACES)
                .oncs(IdentifyController.ONCS_DSM | IdentifyController.ONCS_WRITE_ZEROES
                        | ReservationHandlers.ONCS_RESERVATIONS)
                .vwc(IdentifyController.VWC_PRESENT)
                .nwpc(NWPC_WRITE_PROTECT)
                // Max command capsule: SQE + in-capsule data, in 16-byte units; response capsule: the CQE.
                .ioccsz((SubmissionQueueEntry.SIZE + port.inlineDataSize()) / 16)
                .iorcsz(16 / 16)
                .icdoff(0)
                .msdbd(port.msdbd());
        // One power state, the values nvmet (and QEMU) report: 25 W, entry 16 us, exit 4 us.
        id.powerState(0, new PowerStateDescriptor(0x9C4, 0, 0x10, 0x4, 0, 0, 0, 0, 0, 0, 0, 0));
        return Status.SUCCESS;
    }

    /**
     * nvmet_execute_identify_ns(): NSID FFFFFFFFh is invalid; an inactive NSID returns all zeroes; otherwise size,
     * one LBA format of the backend's block size, shared (NMIC), deallocated blocks read as zeroes (DLFEAT),
     * NGUID and EUI-64.
     */
    private static Status identifyNamespace(Request req, IdentifyCommand cmd) {
        long nsid = cmd.nsid();
        if (nsid == 0xFFFF_FFFFL) {
            req.errorLocation(SubmissionQueueEntry.OFFSET_NSID);
            return StatusCode.INVALID_NS.withDnr();
        }
        req.data().fill((byte) 0);
        SubsystemNamespace ns = req.queue().controller().subsystem().activeNamespace(nsid);
        if (ns == null) {
            return Status.SUCCESS;
        }
        long blocks = ns.backend().blockCount();
        IdentifyNamespace id = IdentifyNamespace.wrap(req.data());
        id.nsze(blocks).ncap(blocks).nuse(blocks)
                .nlbaf(0)
                .flbas(0)
                .nmic(NMIC_SHARED)
                .dlfeat(IdentifyNamespace.DLFEAT_READ_ZEROES)
                .rescap(ReservationHandlers.rescap(ns))
                .anagrpid(ns.anaGroupId())
                .nguid(ns.nguid())
                .eui64(ns.eui64())
                .lbaFormat(0, LbaFormat.ofBlockSize(ns.backend().blockSize()));
        if (ns.isWriteProtected()) {
            id.nsattr(NSATTR_WRITE_PROTECTED);
        }
        return Status.SUCCESS;
    }

    /**
     * CNS 06h for CSI 0 (NVM): all zeroes, no NVM-specific limits beyond MDTS (nvme_execute_identify_ctrl_nvm()
     * does the same); other command sets are an invalid field.
     */
    private static Status ioCommandSetController(Request req, IdentifyCommand cmd) {
        if (cmd.csi() != CSI_NVM) {
            req.errorLocation(IdentifyCommand.OFFSET_CNS);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        req.data().fill((byte) 0);
        return Status.SUCCESS;
    }

    /** nvmet_execute_identify_nslist(): active NSIDs greater than the given one, ascending, up to 1024. */
    private static Status activeNamespaceList(Request req, IdentifyCommand cmd) {
        long min = cmd.nsid();
        if (min == 0xFFFF_FFFEL || min == 0xFFFF_FFFFL) {
            req.errorLocation(SubmissionQueueEntry.OFFSET_NSID);
            return StatusCode.INVALID_NS.withDnr();
        }
        List<Long> nsids = new ArrayList<>();
        for (SubsystemNamespace ns : req.queue().controller().subsystem().activeNamespaces()) {
            if (ns.nsid() > min) {
                nsids.add(ns.nsid());
                if (nsids.size() == ActiveNamespaceList.MAX_ENTRIES) {
                    break;
                }
            }
        }
        req.data().fill((byte) 0);
        ActiveNamespaceList.encode(req.data(), nsids);
        return Status.SUCCESS;
    }

    /** nvmet_execute_identify_desclist(): EUI-64, NGUID, UUID when set, always the command set (CSI 0, NVM). */
    private static Status namespaceDescriptors(Request req, IdentifyCommand cmd) {
        Subsystem subsys = req.queue().controller().subsystem();
        SubsystemNamespace ns = subsys.activeNamespace(cmd.nsid());
        if (ns == null) {
            req.errorLocation(SubmissionQueueEntry.OFFSET_NSID);
            return subsys.hasNamespace(cmd.nsid())
                    ? StatusCode.INTERNAL_PATH_ERROR.status()
                    : StatusCode.INVALID_NS.withDnr();
        }
        List<NamespaceDescriptor> list = new ArrayList<>();
        if (ns.hasEui64()) {
            list.add(NamespaceDescriptor.eui64(ns.eui64()));
        }
        if (ns.hasNguid()) {
            list.add(NamespaceDescriptor.nguid(ns.nguid()));
        }
        ns.uuid().ifPresent(u -> list.add(NamespaceDescriptor.uuid(u)));
        list.add(NamespaceDescriptor.csi(0));
        req.data().fill((byte) 0);
        NamespaceDescriptorList.encode(req.data(), list);
        return Status.SUCCESS;
    }
}
