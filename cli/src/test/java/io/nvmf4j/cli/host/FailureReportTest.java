package io.nvmf4j.cli.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.initiator.NvmfConnectException;
import io.nvmf4j.initiator.NvmfControllerLostException;
import io.nvmf4j.initiator.NvmfStatusException;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import java.nio.file.NoSuchFileException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The one line printed for each kind of failure. */
class FailureReportTest {

    @Test
    void nvmeStatusIsNamedWithItsCodeAndTitle() {
        NvmfStatusException e = new NvmfStatusException("Write nsid 1 slba 99999999 blocks 8",
                StatusCode.LBA_RANGE.status(), false);
        assertEquals("write failed: LBA_RANGE (0x0080): LBA Out of Range", FailureReport.oneLine("write", e));
    }

    @Test
    void theDnrBitShowsInTheStatusFieldAsLinuxPrintsIt() {
        NvmfStatusException e = new NvmfStatusException("Read nsid 1 slba 5 blocks 1",
                StatusCode.LBA_RANGE.status().withDnr(), false);
        assertEquals("read failed: LBA_RANGE (0x4080): LBA Out of Range", FailureReport.oneLine("read", e));
    }

    @Test
    void aStatusInsideACompletionExceptionIsStillFound() {
        NvmfStatusException e = new NvmfStatusException("Read", StatusCode.INVALID_NS.status(), false);
        assertEquals("perf failed: INVALID_NS (0x000b): Invalid Namespace or Format",
                FailureReport.oneLine("perf", new CompletionException(e)));
    }

    @Test
    void anUnknownStatusPrintsItsField() {
        NvmfStatusException e = new NvmfStatusException("Read", new Status(7, 0x33, false, false, 0), false);
        assertEquals("read failed: UNKNOWN (0x0733)", FailureReport.oneLine("read", e));
    }

    @Test
    void refusedConnectionsSayConnectionRefused() {
        NvmfConnectException e = new NvmfConnectException("nvme-x-admin: cannot connect to /127.0.0.1:4420: refused",
                new VerbsException(VerbsErrorCode.CONNECTION_REFUSED, "Connection refused"));
        assertEquals("connection refused", FailureReport.connectReason(e, 5000));
    }

    @Test
    void aSilentTargetNamesTheTimeout() {
        NvmfConnectException e = new NvmfConnectException("nvme-x-admin: cannot connect: no answer within 5000 ms",
                new VerbsException(VerbsErrorCode.TIMED_OUT, "timed out"));
        assertEquals("no answer within 5000 ms", FailureReport.connectReason(e, 5000));
    }

    @Test
    void theLibrarysQueuePrefixIsDropped() {
        assertEquals("controller is dead", FailureReport.oneLine("read",
                new NvmfControllerLostException("nvme-nqn.x-io1: controller is dead")).replace("read failed: ", ""));
    }

    @Test
    void aMissingFileIsNamed() {
        assertEquals("write: /nope/data.bin: no such file",
                FailureReport.oneLine("write", new NoSuchFileException("/nope/data.bin")));
    }

    @Test
    void commandFailuresAreTheirMessage() {
        assertEquals("cannot connect to 127.0.0.1:4420: connection refused", FailureReport.oneLine("identify",
                new CommandFailure("cannot connect to 127.0.0.1:4420: connection refused")));
    }
}
