package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.admin.AdminOpcode;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.io.IoOpcode;
import io.nvmf4j.protocol.log.CommandEffectsLog;

/**
 * Commands Supported and Effects (log page 05h; NVMe Base 2.0, 5.16.1.6), advertised by Identify Controller LPA
 * bit 1: the admin and NVM I/O commands this target executes ({@link AdminCommands#parse}, {@link IoCommands}),
 * as nvmet_execute_get_log_cmd_effects_ns() lists its own. Commands that write logical blocks say so (LBCC):
 * Write and Write Zeroes as nvmet marks them, and Dataset Management too, whose deallocate changes what the
 * blocks read (as SPDK marks it). CSI (CDW14 bits 31:24) 0 is the NVM command set; 2 (zoned namespaces) is an
 * Invalid I/O Command Set and any other an Invalid Log Page, nvmet's answers without zoned block support.
 */
final class CommandEffectsLogPage {

    /** CSI of the Zoned Namespace command set. */
    static final int CSI_ZNS = 2;

    private CommandEffectsLogPage() {
    }

    static Status get(Request req, GetLogPageCommand cmd) {
        int csi = cmd.csi();
        if (csi == CSI_ZNS) {
            return StatusCode.INVALID_IO_CMD_SET.status();
        }
        if (csi != IdentifyHandlers.CSI_NVM) {
            return StatusCode.INVALID_LOG_PAGE.status();
        }
        return LogPageData.copy(req, cmd, page().segment());
    }

    /** What this target executes; a command added to the dispatch belongs here too. */
    static CommandEffectsLog page() {
        int supported = CommandEffectsLog.CSUPP;
        int writes = CommandEffectsLog.CSUPP | CommandEffectsLog.LBCC;
        CommandEffectsLog log = CommandEffectsLog.allocate();
        for (AdminOpcode op : new AdminOpcode[] {AdminOpcode.GET_LOG_PAGE, AdminOpcode.IDENTIFY, AdminOpcode.ABORT,
                AdminOpcode.SET_FEATURES, AdminOpcode.GET_FEATURES, AdminOpcode.ASYNC_EVENT_REQUEST,
                AdminOpcode.KEEP_ALIVE}) {
            log.admin(op.code(), supported);
        }
        log.io(IoOpcode.FLUSH.code(), supported)
                .io(IoOpcode.READ.code(), supported)
                .io(IoOpcode.WRITE.code(), writes)
                .io(IoOpcode.WRITE_ZEROES.code(), writes)
                .io(IoOpcode.DATASET_MANAGEMENT.code(), writes)
                // reservations (8.19) change no logical block; nvmet lists them with CSUPP alone
                .io(IoOpcode.RESERVATION_REGISTER.code(), supported)
                .io(IoOpcode.RESERVATION_REPORT.code(), supported)
                .io(IoOpcode.RESERVATION_ACQUIRE.code(), supported)
                .io(IoOpcode.RESERVATION_RELEASE.code(), supported);
        return log;
    }
}
