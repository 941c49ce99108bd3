package io.nvmf4j.initiator.fake;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.ActiveNamespaceList;
import io.nvmf4j.protocol.admin.AdminOpcode;
import io.nvmf4j.protocol.admin.FeatureId;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.admin.LbaFormat;
import io.nvmf4j.protocol.admin.NumberOfQueues;
import io.nvmf4j.protocol.admin.SetFeaturesCommand;
import io.nvmf4j.protocol.fabrics.ConnectData;
import io.nvmf4j.protocol.fabrics.ControllerCapabilities;
import io.nvmf4j.protocol.fabrics.ControllerConfiguration;
import io.nvmf4j.protocol.fabrics.ControllerProperty;
import io.nvmf4j.protocol.fabrics.ControllerStatus;
import io.nvmf4j.protocol.fabrics.FabricsCommandType;
import io.nvmf4j.protocol.fabrics.PropertyGetCommand;
import io.nvmf4j.protocol.fabrics.PropertySetCommand;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.log.DiscoveryLogPage;
import io.nvmf4j.verbs.MemoryRegion;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How the {@link ScriptedController} answers Fabrics commands (Connect, Property Get and Set) on any queue and
 * admin commands (Identify, Set Features, Keep Alive, Get Log Page) on the admin queue, from its
 * {@link ScriptedController.Script}; the counterpart of nvmet_parse_fabrics_cmd() and nvmet_parse_admin_cmd(). One
 * instance per controller: the controller configuration, the controller IDs handed out and the discovery log's
 * generation are the controller's, shared by its queues.
 */
final class AdminCommands {
    private final ScriptedController controller;
    private final ScriptedController.Script script;
    private final AtomicInteger nextCntlid = new AtomicInteger(1);
    private volatile int cc;
    private volatile int genctrReads;

    AdminCommands(ScriptedController controller) {
        this.controller = controller;
        this.script = controller.script;
    }

    /** A Fabrics command (opcode 7Fh), on any queue; Connect's data is fetched through {@code queue}. */
    Response fabrics(SubmissionQueueEntry sqe, byte[] raw, byte[] inCapsule, ScriptedQueue queue) throws Exception {
        int fctype = Wire.u8(sqe.segment(), 4);
        if (fctype == FabricsCommandType.CONNECT.value()) {
            queue.fetch(raw, inCapsule, ConnectData.SIZE);
            ConnectData cd = ConnectData.decode(queue.data.segment());
            controller.connectData.add(cd);
            int cntlid = cd.cntlid().isDynamic() ? nextCntlid.getAndIncrement() : cd.cntlid().value();
            return Response.ok(cntlid);
        }
        if (fctype == FabricsCommandType.PROPERTY_GET.value()) {
            PropertyGetCommand get = PropertyGetCommand.decode(sqe);
            ControllerProperty p = ControllerProperty.at(get.offset()).orElseThrow();
            return switch (p) {
                case CAP -> Response.ok(new ControllerCapabilities(script.mqes, true, 0, 2, 0, false,
                        ControllerCapabilities.CSS_NVM, false, 0, 0).toRaw());
                case VS -> Response.ok(0x00010300);
                case CC -> Response.ok(Integer.toUnsignedLong(cc));
                case CSTS -> {
                    ControllerConfiguration c = ControllerConfiguration.fromRaw(cc);
                    yield Response.ok(new ControllerStatus(c.enable(), false,
                            c.shn() != 0 ? ControllerStatus.SHST_COMPLETE : 0, false, false).toRaw());
                }
                default -> Response.error(StatusCode.INVALID_FIELD);
            };
        }
        if (fctype == FabricsCommandType.PROPERTY_SET.value()) {
            PropertySetCommand set = PropertySetCommand.decode(sqe);
            cc = (int) set.value();
            return Response.ok(0);
        }
        return Response.error(StatusCode.INVALID_OPCODE);
    }

    /** An admin command on the admin queue; what goes to the host is put at the start of {@code data}. */
    Response admin(SubmissionQueueEntry sqe, byte[] raw, MemoryRegion data) {
        int opcode = sqe.opcode();
        var hostile = script.hostileAdminData;
        if (hostile != null && (opcode == AdminOpcode.IDENTIFY.code() || opcode == AdminOpcode.GET_LOG_PAGE.code())) {
            byte[] bytes = hostile.apply(sqe);
            if (bytes == null) {
                return Response.error(StatusCode.INVALID_FIELD);
            }
            long asked = opcode == AdminOpcode.IDENTIFY.code() ? 4096 : GetLogPageCommand.wrap(sqe).lengthBytes();
            int len = (int) Math.min(Math.min(data.segment().byteSize(), asked), ScriptedQueue.keyed(raw).length());
            MemorySegment out = data.segment().asSlice(0, len);
            out.fill((byte) 0);
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, out, 0, Math.min(len, bytes.length));
            return Response.toHost(len);
        }
        if (opcode == AdminOpcode.IDENTIFY.code()) {
            IdentifyCommand id = IdentifyCommand.wrap(sqe);
            MemorySegment out = data.segment().asSlice(0, 4096);
            out.fill((byte) 0);
            switch (id.cns()) {
                case IdentifyCommand.CNS_CONTROLLER -> {
                    IdentifyController c = IdentifyController.wrap(out);
                    c.serialNumber("SCRIPTED0001").modelNumber("nvmf4j scripted test double").firmwareRevision("0.1");
                    c.mdts(script.mdts).cntlid(1).ver(0x00010300).sqes(0x66).cqes(0x44).maxcmd(script.mqes + 1)
                            .nn(script.nn).sgls(IdentifyController.SGLS_SUPPORTED | IdentifyController.SGLS_KEYED
                                    | IdentifyController.SGLS_OFFSET)
                            .ioccsz((64 + script.inCapsuleBytes) / 16).iorcsz(1).icdoff(0).kas(1);
                    c.subsystemNqn(script.subsystem);
                }
                case IdentifyCommand.CNS_NAMESPACE -> {
                    if (id.nsid() != 1) {
                        return Response.error(StatusCode.INVALID_NS);
                    }
                    IdentifyNamespace ns = IdentifyNamespace.wrap(out);
                    ns.nsze(script.blocks).ncap(script.blocks).nuse(script.blocks).nlbaf(0).flbas(0);
                    ns.lbaFormat(0, script.lbadsClaim == null ? LbaFormat.ofBlockSize(script.blockSize)
                            : new LbaFormat(0, script.lbadsClaim, 0));
                }
                case IdentifyCommand.CNS_ACTIVE_NAMESPACE_LIST -> {
                    if (script.activeNamespaces != null) {
                        List<Long> page = script.activeNamespaces.apply(id.nsid());
                        for (int i = 0; i < page.size(); i++) { // raw: a hostile list need not be increasing
                            Wire.u32(out, 4L * i, page.get(i));
                        }
                    } else {
                        ActiveNamespaceList.encode(out, id.nsid() < 1 ? List.of(1L) : List.of());
                    }
                }
                default -> {
                    return Response.error(StatusCode.INVALID_FIELD);
                }
            }
            return Response.toHost(4096);
        }
        if (opcode == AdminOpcode.SET_FEATURES.code()) {
            SetFeaturesCommand set = SetFeaturesCommand.wrap(sqe);
            if (set.fid() == FeatureId.NUMBER_OF_QUEUES.code()) {
                int g = script.grantedQueues;
                return Response.ok(new NumberOfQueues(g, g).toDword());
            }
            return Response.ok(0);
        }
        if (opcode == AdminOpcode.KEEP_ALIVE.code()) {
            controller.keepAlives.incrementAndGet();
            return Response.ok(0);
        }
        if (opcode == AdminOpcode.GET_LOG_PAGE.code()) {
            GetLogPageCommand get = GetLogPageCommand.wrap(sqe);
            int n = script.discoveryRecords;
            MemorySegment log = MemorySegment.ofArray(new byte[(int) DiscoveryLogPage.sizeFor(n)]);
            DiscoveryLogPage page = DiscoveryLogPage.wrap(log);
            if (get.offset() == 0 && !get.rae() && genctrReads < script.bumpGenctrOnFirstRead) {
                genctrReads++;
            }
            page.genctr(7 + genctrReads).numrec(script.discoveryNumrecClaim != null ? script.discoveryNumrecClaim : n)
                    .recfmt(0);
            for (int i = 0; i < n; i++) {
                DiscoveryLogEntry e = page.entry(i);
                boolean referral = n > 1 && i == n - 1;
                e.trtype(DiscoveryLogEntry.TRTYPE_RDMA).adrfam(DiscoveryLogEntry.ADRFAM_IPV4)
                        .subtype(referral ? DiscoveryLogEntry.SUBTYPE_REFERRAL : DiscoveryLogEntry.SUBTYPE_NVME)
                        .portId(1).cntlid(0xFFFF).asqsz(32).trsvcid("4420").traddr("127.0.0.1");
                e.subsystemNqn(referral ? Nqn.DISCOVERY : Nqn.parse("nqn.2026-12.io.nvmf4j:sub" + i));
                e.rdmaTsas(new io.nvmf4j.protocol.rdma.RdmaTsas(1, 5, 1, 0)); // connected, iWARP, RDMA_CM
            }
            int len = (int) get.lengthBytes();
            MemorySegment out = data.segment().asSlice(0, len);
            out.fill((byte) 0);
            long off = get.offset();
            if (off < log.byteSize()) {
                MemorySegment.copy(log, off, out, 0, Math.min(len, log.byteSize() - off));
            }
            return Response.toHost(len);
        }
        return Response.error(StatusCode.INVALID_OPCODE);
    }
}
