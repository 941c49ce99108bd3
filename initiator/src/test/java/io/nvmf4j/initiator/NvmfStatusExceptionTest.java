package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import org.junit.jupiter.api.Test;

/** Status words as Linux prints NVME_SC_* values (status field unshifted, DNR = 0x4000). */
class NvmfStatusExceptionTest {

    @Test
    void lbaRangeWithDnrReadsLikeLinux() {
        NvmfStatusException e = new NvmfStatusException("Read nsid 1 slba 9 blocks 8",
                Status.fromStatusWord(0x8100), false);
        assertEquals("Read nsid 1 slba 9 blocks 8: LBA_RANGE (0x4080): LBA Out of Range", e.getMessage());
        assertEquals(StatusCode.LBA_RANGE, e.statusCode().orElseThrow());
    }

    @Test
    void fabricsCommandsGetTheirOwnMeaningOfCommandSpecificCodes() {
        Status s = Status.fromField(0x4182);
        assertEquals("CONNECT_INVALID_PARAM (0x4182): Connect Invalid Parameters",
                NvmfStatusException.describe(s, true));
        assertEquals("READ_ONLY (0x4182): Attempted Write to Read Only Range", NvmfStatusException.describe(s, false));
    }

    @Test
    void unknownCodesStillShowTheirValue() {
        assertEquals("UNKNOWN (0x0512)", NvmfStatusException.describe(Status.fromField(0x0512), false));
    }
}
