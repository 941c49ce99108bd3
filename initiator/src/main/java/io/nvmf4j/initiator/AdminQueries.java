package io.nvmf4j.initiator;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.admin.ActiveNamespaceList;
import io.nvmf4j.protocol.admin.AdminOpcode;
import io.nvmf4j.protocol.admin.GetFeaturesCommand;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.admin.NamespaceDescriptor;
import io.nvmf4j.protocol.admin.NamespaceDescriptorList;
import io.nvmf4j.protocol.log.AnaLogPage;
import io.nvmf4j.protocol.log.LogPageId;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The admin commands behind {@link NvmeController}'s query methods (Identify, Get Log Page, Get Features, the ANA log),
 * as Linux keeps them in host/core.c ({@code nvme_identify_ns()}, {@code nvme_get_log()}, {@code nvme_get_features()})
 * apart from the controller's life cycle. Every command goes through {@link NvmeController#runAdmin}.
 */
final class AdminQueries {

    private static final int ADMIN_BUFFER_SIZE = NvmeController.ADMIN_BUFFER_SIZE;
    /** Identify Controller CMIC bit 3: ANA reporting. */
    private static final int CMIC_ANA = 1 << 3;

    private final NvmeController controller;

    AdminQueries(NvmeController controller) {
        this.controller = controller;
    }

    /** Read when used: the controller's name is set after this object is made. */
    private String name() {
        return controller.name();
    }

    private long runAdmin(FutureRequest command) throws NvmfException {
        return controller.runAdmin(command);
    }

    private IdentifyController identify() {
        return controller.identify();
    }

    List<Long> activeNamespaceIds() throws NvmfException {
        return NamespaceListReader.read(name(), identify().nn(), start -> {
            MemorySegment data = MemorySegment.ofArray(new byte[ActiveNamespaceList.SIZE]);
            FutureRequest list = new FutureRequest("Identify Active Namespace List from nsid " + start, false, true,
                    sqe -> IdentifyCommand.create(sqe, IdentifyCommand.CNS_ACTIVE_NAMESPACE_LIST, start));
            list.copy(NvmeRequest.Direction.CONTROLLER_TO_HOST, data);
            runAdmin(list);
            return data;
        });
    }

    IdentifyNamespace identifyNamespace(long nsid) throws NvmfException {
        MemorySegment data = MemorySegment.ofArray(new byte[IdentifyNamespace.SIZE]);
        FutureRequest id = new FutureRequest("Identify Namespace " + nsid, false, true,
                sqe -> IdentifyCommand.create(sqe, IdentifyCommand.CNS_NAMESPACE, nsid));
        id.copy(NvmeRequest.Direction.CONTROLLER_TO_HOST, data);
        runAdmin(id);
        return IdentifyNamespace.wrap(data);
    }

    /**
     * An allocated namespace's identify data checked before the host does I/O with it (IdentifyNamespace#validate:
     * NLBAF and FLBAS in range, LBADS within 2^9..2^31, NCAP and NUSE within NSZE, one block within the MDTS
     * limit): a controller reporting anything
     * else is a protocol error naming the field, not an internal failure of the host later.
     */
    static IdentifyNamespace usable(String controller, long nsid, IdentifyNamespace id, long maxTransferBytes)
            throws NvmfException {
        try {
            id.validate();
        } catch (MalformedStructureException e) {
            throw new NvmfException(controller + ": Identify Namespace " + nsid + " is not usable: "
                    + e.getMessage());
        }
        if (id.blockSize() > maxTransferBytes) {
            // both values are valid on their own; together no command can move one block
            throw new NvmfException(controller + ": Identify Namespace " + nsid + " is not usable: LBADS "
                    + id.activeLbaFormat().lbaDataSizeShift() + " (" + id.blockSize() + "-byte blocks) exceeds the "
                    + maxTransferBytes + " bytes one command may carry (MDTS)");
        }
        return id;
    }

    List<NamespaceDescriptor> namespaceDescriptors(long nsid) throws NvmfException {
        MemorySegment data = MemorySegment.ofArray(new byte[NamespaceDescriptorList.SIZE]);
        FutureRequest id = new FutureRequest("Identify Namespace Identification Descriptor list " + nsid, false,
                true, sqe -> IdentifyCommand.create(sqe, IdentifyCommand.CNS_NAMESPACE_DESCRIPTOR_LIST, nsid));
        id.copy(NvmeRequest.Direction.CONTROLLER_TO_HOST, data);
        try {
            runAdmin(id);
        } catch (NvmfStatusException e) {
            return List.of(); // nvme_identify_ns_descs(): an error status is not fatal, the IDs stay unknown
        }
        try {
            return NamespaceDescriptorList.decode(data);
        } catch (RuntimeException e) {
            throw new NvmfException(name() + ": malformed Namespace Identification Descriptor list for nsid " + nsid
                    + ": " + e.getMessage(), e);
        }
    }

    MemorySegment getLogPage(int lid, long nsid, long offset, int length, boolean rae) throws NvmfException {
        if (length <= 0 || (length & 3) != 0 || (offset & 3) != 0) {
            throw new IllegalArgumentException("log page length/offset must be positive dword multiples");
        }
        MemorySegment out = MemorySegment.ofArray(new byte[length]);
        int done = 0;
        while (done < length) {
            int chunk = Math.min(ADMIN_BUFFER_SIZE, length - done);
            long lpo = offset + done;
            boolean chunkRae = rae || done + chunk < length;
            FutureRequest get = new FutureRequest(String.format("Get Log Page %02xh offset %d length %d", lid, lpo,
                    chunk), false, true,
                    sqe -> GetLogPageCommand.create(sqe, lid, nsid, chunk).offset(lpo).rae(chunkRae));
            get.copy(NvmeRequest.Direction.CONTROLLER_TO_HOST, out.asSlice(done, chunk));
            runAdmin(get);
            done += chunk;
        }
        return out;
    }

    FeatureResult getFeatures(int fid, long nsid, int sel, int cdw11, MemorySegment data) throws NvmfException {
        if (data != null && data.byteSize() > ADMIN_BUFFER_SIZE) {
            throw new IllegalArgumentException("Get Features data of " + data.byteSize() + " bytes exceeds "
                    + ADMIN_BUFFER_SIZE);
        }
        FutureRequest get = new FutureRequest(String.format("Get Features %02xh sel %d", fid, sel), false, true,
                sqe -> {
                    sqe.clear();
                    sqe.opcode(AdminOpcode.GET_FEATURES.code());
                    sqe.nsid(nsid);
                    // any FID goes out as given: the controller, not the host, decides which it implements
                    GetFeaturesCommand.wrap(sqe).fid(fid).sel(sel).cdw11(cdw11);
                });
        if (data == null || data.byteSize() == 0) {
            get.noData();
        } else {
            get.copy(NvmeRequest.Direction.CONTROLLER_TO_HOST, data);
        }
        try {
            return new FeatureResult((int) runAdmin(get), Status.SUCCESS);
        } catch (NvmfStatusException e) {
            return new FeatureResult(0, e.status());
        }
    }

    AnaLogPage anaLog() throws NvmfException {
        return anaLog(name(), identify(),
                length -> getLogPage(LogPageId.ANA.code(), 0xFFFF_FFFFL, 0, length, false));
    }

    /** The whole ANA log page in one read of {@code length} bytes, as the controller sent it. */
    @FunctionalInterface
    interface AnaLogReader {
        MemorySegment read(int length) throws NvmfException;
    }

    /**
     * The ANA log as {@link #anaLog()} reads it, over any source of log bytes: sized from Identify Controller
     * (NANAGRPID groups, MNAN or NN NSIDs, at most {@value #MAX_ANA_GROUPS} and {@value #MAX_ANA_NSIDS}: about 6 MiB);
     * a page that does not decode (a reserved ANA state, NNSIDS beyond the page) is the controller's protocol error,
     * reported as {@link NvmfException} as {@link NvmeController#anaLog()} declares.
     */
    static AnaLogPage anaLog(String name, IdentifyController id, AnaLogReader log) throws NvmfException {
        if ((id.cmic() & CMIC_ANA) == 0) {
            return new AnaLogPage(0, List.of());
        }
        long groups = Integer.toUnsignedLong(id.nanagrpid());
        long nsids = id.mnan() != 0 ? Integer.toUnsignedLong(id.mnan()) : id.nn();
        long size = AnaLogPage.HEADER_SIZE + groups * AnaLogPage.DESCRIPTOR_SIZE + nsids * 4;
        if (groups > MAX_ANA_GROUPS || nsids > MAX_ANA_NSIDS || size > Integer.MAX_VALUE) {
            throw new NvmfException(name + ": controller reports " + groups + " ANA groups and " + nsids
                    + " namespaces: an ANA log page too large to read");
        }
        MemorySegment page = log.read((int) size);
        try {
            return AnaLogPage.decode(page);
        } catch (MalformedStructureException e) {
            throw new NvmfException(name + ": malformed ANA log page (0Ch): " + e.getMessage(), e);
        }
    }

    /** Most ANA groups and NSIDs whose log the host reads (NANAGRPID is 32 bits, MNAN and NN too). */
    static final long MAX_ANA_GROUPS = 0xFFFF;
    static final long MAX_ANA_NSIDS = 0x10_0000;
}
