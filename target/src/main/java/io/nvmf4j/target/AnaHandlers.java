package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.log.AnaLogPage;
import io.nvmf4j.protocol.log.AnaState;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;

/**
 * Asymmetric Namespace Access on an NVM controller (NVMe Base 2.0, 8.1; Linux nvmet {@code port->ana_state[]}):
 * the access check of every I/O command (nvmet_check_ana_state()), the ANA log page (0Ch,
 * nvmet_execute_get_log_page_ana()) and the Identify Controller fields.
 */
final class AnaHandlers {

    /** CMIC bit 3: ANA reporting, with bits 0-1 (several ports, several controllers) as nvmet sets them. */
    static final int CMIC_MULTI_PORT_MULTI_CTRL_ANA = 0x0B;
    /** ANACAP: reports optimized, non-optimized, inaccessible, persistent loss and change states (nvmet). */
    static final int ANACAP_ALL_STATES = 0x1F;
    /** ANATT in seconds: nvmet's value; the state "change" is never left pending longer by the target itself. */
    static final int ANATT_SECONDS = 10;
    /** OAES bit 11: ANA Change Notices. */
    static final int OAES_ANA_CHANGE = 1 << 11;

    // nvmet_check_ana_state(): path errors without DNR, so a multipath host retries on another path
    private static final Status INACCESSIBLE = StatusCode.ANA_INACCESSIBLE.status();
    private static final Status PERSISTENT_LOSS = StatusCode.ANA_PERSISTENT_LOSS.status();
    private static final Status TRANSITION = StatusCode.ANA_TRANSITION.status();

    private AnaHandlers() {
    }

    /**
     * nvmet_check_ana_state(): an I/O command on a namespace whose group is inaccessible, lost or changing on the
     * port the command came through fails with the path status Linux maps to a path failover; {@link Status#SUCCESS}
     * otherwise. One array read, no allocation.
     */
    static Status check(Request req, SubsystemNamespace ns) {
        AnaState state = req.queue().port().inaccessibleState(ns.anaGroupId);
        if (state == null) {
            return Status.SUCCESS;
        }
        req.errorLocation(SubmissionQueueEntry.OFFSET_NSID);
        return switch (state) {
            case INACCESSIBLE -> INACCESSIBLE;
            case PERSISTENT_LOSS -> PERSISTENT_LOSS;
            default -> TRANSITION;
        };
    }

    /**
     * nvmet_execute_get_log_page_ana(): one descriptor per group this port defines and per group a namespace of the
     * subsystem is in, ascending, with this port's state, the port's change count and, unless Return Groups Only
     * (LSP bit 0), the active NSIDs of the group. Served from the log page offset and truncated to the host's
     * buffer; reading it without RAE re-arms the ANA change notice.
     */
    static Status logPage(Request req, GetLogPageCommand cmd) {
        Controller ctrl = req.queue().controller();
        Port port = req.queue().port();
        boolean groupsOnly = (cmd.lsp() & AnaLogPage.LSP_RGO) != 0;
        long change = port.anaChangeCount();
        SortedMap<Integer, AnaState> defined = port.anaGroups();
        List<SubsystemNamespace> namespaces = ctrl.subsystem().activeNamespaces();
        java.util.TreeSet<Integer> ids = new java.util.TreeSet<>(defined.keySet());
        for (SubsystemNamespace ns : namespaces) {
            ids.add(ns.anaGroupId());
        }
        List<AnaLogPage.Group> groups = new ArrayList<>();
        for (int grpid : ids) {
            List<Long> nsids = new ArrayList<>();
            if (!groupsOnly) {
                for (SubsystemNamespace ns : namespaces) {
                    if (ns.anaGroupId() == grpid) {
                        nsids.add(ns.nsid());
                    }
                }
            }
            groups.add(new AnaLogPage.Group(grpid, change, port.anaState(grpid), nsids));
        }
        AnaLogPage page = new AnaLogPage(change, groups);
        // the log page offset (LPO; Identify Controller LPA bit 2 says we honour it): a host may read the page in
        // pieces, as libnvme does in 4 KiB steps of the size NANAGRPID and MNAN allow; bytes past the page read as
        // zero, also at an offset past it, as SPDK's nvmf_get_ana_log_page() serves them
        long offset = cmd.offset();
        MemorySegment whole = MemorySegment.ofArray(new byte[page.size()]);
        page.encode(whole);
        MemorySegment out = req.data();
        out.fill((byte) 0);
        if (Long.compareUnsigned(offset, page.size()) < 0) {
            MemorySegment.copy(whole, offset, out, 0, Math.min(out.byteSize(), page.size() - offset));
        }
        ctrl.asyncEvents().clearMask(AsyncEvents.AEN_ANA_CHANGE, cmd.rae());
        return Status.SUCCESS;
    }
}
