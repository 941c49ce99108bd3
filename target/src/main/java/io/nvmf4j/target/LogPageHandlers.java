package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.log.ChangedNamespaceList;
import io.nvmf4j.protocol.log.LogPageId;
import io.nvmf4j.protocol.log.SmartHealthLog;
import java.math.BigInteger;
import java.util.List;

/**
 * Get Log Page (admin opcode 02h) for NVM controllers, as nvmet_execute_get_log_page() serves it: the Error
 * Information (01h), SMART / Health Information (02h), Firmware Slot Information (03h, {@link FirmwareSlotLogPage}),
 * Changed Namespace List (04h) and Commands Supported and Effects (05h, {@link CommandEffectsLogPage}) pages;
 * any other log page identifier is an Invalid Field (DNR) pointing at LID, as nvmet. The SGL must
 * describe exactly NUMD dwords; the SMART and changed-namespace pages must be asked for whole (512 and 4096 bytes,
 * else Internal Error, as nvmet); the log page offset is honoured by the discovery log, like nvmet, and by the
 * pages built whole in memory ({@link LogPageData}).
 */
final class LogPageHandlers {

    private LogPageHandlers() {
    }

    static Status getLogPage(Request req) {
        GetLogPageCommand cmd = GetLogPageCommand.wrap(req.sqe());
        Status s = Transfers.checkLength(req, cmd.lengthBytes());
        if (!s.isSuccess()) {
            return s;
        }
        int lid = cmd.lid();
        if (lid == LogPageId.ERROR.code()) {
            req.queue().controller().errorLog().copyTo(req.data());
            return Status.SUCCESS;
        }
        if (lid == LogPageId.SMART.code()) {
            return smart(req, cmd);
        }
        if (lid == LogPageId.FW_SLOT.code()) {
            return FirmwareSlotLogPage.get(req, cmd);
        }
        if (lid == LogPageId.CHANGED_NS.code()) {
            return changedNamespaces(req, cmd);
        }
        if (lid == LogPageId.CMD_EFFECTS.code()) {
            return CommandEffectsLogPage.get(req, cmd);
        }
        if (lid == LogPageId.ANA.code()) {
            return AnaHandlers.logPage(req, cmd);
        }
        if (lid == LogPageId.RESERVATION.code()) {
            return ReservationHandlers.notificationLog(req, cmd);
        }
        req.errorLocation(GetLogPageCommand.OFFSET_LID);
        return StatusCode.INVALID_FIELD.withDnr();
    }

    /**
     * nvmet_execute_get_log_page_smart(): NSID FFFFFFFFh sums all namespaces (nvmet_get_smart_log_all()), another
     * NSID reports that namespace; counters are host read/write commands and data units of 1000 × 512 bytes
     * (rounded up per namespace, as nvmet sums them); the error count is the controller's.
     */
    private static Status smart(Request req, GetLogPageCommand cmd) {
        if (req.transferLength() != SmartHealthLog.SIZE) {
            return StatusCode.INTERNAL.status();
        }
        Controller ctrl = req.queue().controller();
        List<SubsystemNamespace> namespaces;
        long nsid = req.sqe().nsid();
        if (nsid == 0xFFFF_FFFFL) {
            namespaces = ctrl.subsystem().activeNamespaces();
        } else {
            SubsystemNamespace ns = ctrl.subsystem().activeNamespace(nsid);
            if (ns == null) {
                req.errorLocation(SubmissionQueueEntry.OFFSET_NSID);
                return StatusCode.INVALID_NS.withDnr();
            }
            namespaces = List.of(ns);
        }
        long unitsRead = 0;
        long unitsWritten = 0;
        long reads = 0;
        long writes = 0;
        for (SubsystemNamespace ns : namespaces) {
            NamespaceStatistics st = ns.statistics();
            unitsRead += NamespaceStatistics.dataUnits(st.bytesRead());
            unitsWritten += NamespaceStatistics.dataUnits(st.bytesWritten());
            reads += st.readCommands();
            writes += st.writeCommands();
        }
        req.data().fill((byte) 0);
        SmartHealthLog.wrap(req.data())
                .dataUnitsRead(BigInteger.valueOf(unitsRead))
                .dataUnitsWritten(BigInteger.valueOf(unitsWritten))
                .hostReadCommands(BigInteger.valueOf(reads))
                .hostWriteCommands(BigInteger.valueOf(writes))
                .errorLogEntries(BigInteger.valueOf(ctrl.errorLog().errorCount()));
        return Status.SUCCESS;
    }

    /**
     * nvmet_execute_get_log_changed_ns(): the NSIDs changed since the last read (or FFFFFFFFh alone after more
     * than 1024), then the list is cleared and, without RAE, the Namespace Attribute Notice re-armed.
     */
    private static Status changedNamespaces(Request req, GetLogPageCommand cmd) {
        if (req.transferLength() != ChangedNamespaceList.SIZE) {
            return StatusCode.INTERNAL.status();
        }
        AsyncEvents events = req.queue().controller().asyncEvents();
        ChangedNamespaceList list = events.takeChangedNamespaces();
        req.data().fill((byte) 0);
        list.encode(req.data());
        events.clearMask(AsyncEvents.AEN_NS_ATTRIBUTE, cmd.rae());
        return Status.SUCCESS;
    }
}
