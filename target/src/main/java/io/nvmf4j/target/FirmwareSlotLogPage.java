package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.log.FirmwareSlotLog;

/**
 * Firmware Slot Information (log page 03h; NVMe Base 2.0, 5.16.1.4), mandatory and advertised by Identify
 * Controller FRMW (one slot, slot 1 read-only). Linux nvmet answers it with zeroes of whatever length was asked
 * (nvmet_execute_get_log_page_noop(): "a single firmware slot which always is active"); nvmf4j answers any
 * length alike, but fills what the zeroes leave out, as SPDK's nvmf_get_firmware_slot_log_page() does: AFI says
 * the running firmware came from slot 1 (0 names no slot at all) and FRS1 holds the revision Identify Controller
 * reports in FR.
 */
final class FirmwareSlotLogPage {

    private FirmwareSlotLogPage() {
    }

    static Status get(Request req, GetLogPageCommand cmd) {
        FirmwareSlotLog page = FirmwareSlotLog.allocate()
                .activeFirmwareInfo(1, 0)
                .revision(1, req.queue().controller().subsystem().firmwareRevision());
        return LogPageData.copy(req, cmd, page.segment());
    }
}
