package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import java.lang.foreign.MemorySegment;

/**
 * Serves a log page built whole in memory: from the Log Page Offset (LPO; Identify Controller LPA bit 2 advertises
 * it) for as many bytes as NUMD asks, zeroes past the page's end, as SPDK's log page helpers copy. An offset that
 * is not a multiple of four or lies beyond the page is an invalid field, the rule nvmet applies to the discovery
 * log (nvmet_execute_disc_get_log_page()).
 */
final class LogPageData {

    private LogPageData() {
    }

    static Status copy(Request req, GetLogPageCommand cmd, MemorySegment page) {
        long offset = cmd.offset();
        if ((offset & 3) != 0 || Long.compareUnsigned(offset, page.byteSize()) > 0) {
            req.errorLocation(GetLogPageCommand.OFFSET_LPO);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        MemorySegment out = req.data();
        out.fill((byte) 0);
        long n = Math.min(out.byteSize(), page.byteSize() - offset);
        MemorySegment.copy(page, offset, out, 0, n);
        return Status.SUCCESS;
    }
}
