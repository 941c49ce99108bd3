package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * Checks of the transfer length the SGL described against what the command needs, and the zero-fill/copy helpers
 * handlers use to place data into the host's buffer (nvmet_check_transfer_len(), nvmet_check_data_len_lte(),
 * nvmet_copy_to_sgl(), nvmet_zero_sgl()).
 */
final class Transfers {

    private Transfers() {
    }

    /**
     * Success when the SGL length equals {@code length}; otherwise Data SGL Length Invalid with the data pointer as
     * error location (NVMe-oF always uses SGLs, so never nvmet's PRP variant Invalid Field).
     */
    static Status checkLength(Request req, long length) {
        if (req.transferLength() != length) {
            req.errorLocation(SubmissionQueueEntry.OFFSET_DPTR);
            return StatusCode.SGL_INVALID_DATA.withDnr();
        }
        return Status.SUCCESS;
    }

    /** Success when the SGL covers at least {@code length} bytes (nvmet_check_data_len_lte()). */
    static Status checkLengthAtLeast(Request req, long length) {
        if (length > req.transferLength()) {
            req.errorLocation(SubmissionQueueEntry.OFFSET_DPTR);
            return StatusCode.SGL_INVALID_DATA.withDnr();
        }
        return Status.SUCCESS;
    }
}
