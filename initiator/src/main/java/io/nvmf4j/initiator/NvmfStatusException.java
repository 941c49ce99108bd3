package io.nvmf4j.initiator;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import java.util.Optional;

/**
 * A command completed with a non-success NVMe status. The message names the status and its code the way Linux
 * prints {@code NVME_SC_*} values with the DNR/More flags in the unshifted status field, e.g.
 * {@code "Read nsid 1 slba 100: LBA_RANGE (0x4080): LBA Out of Range"}.
 */
public class NvmfStatusException extends NvmfException {
    private static final long serialVersionUID = 1L;

    private final transient Status status;
    private final boolean fabricsCommand;
    private final String command;
    private final long result;

    public NvmfStatusException(String command, Status status, boolean fabricsCommand) {
        this(command, status, fabricsCommand, 0);
    }

    /** With the completion's command-specific result (DW0, DW1 in the high half), which some failures explain. */
    public NvmfStatusException(String command, Status status, boolean fabricsCommand, long result) {
        super(command + ": " + describe(status, fabricsCommand));
        this.status = status;
        this.fabricsCommand = fabricsCommand;
        this.command = command;
        this.result = result;
    }

    /**
     * The completion's command-specific result: for a Connect refused with Connect Invalid Parameters or Invalid
     * Host, DW0 holds IATTR/IPO, where the refused field is ({@link ConnectRefusal}).
     */
    public long result() {
        return result;
    }

    /** "LBA_RANGE (0x4080): LBA Out of Range"; an unnamed code prints as "UNKNOWN (0x0512)". */
    public static String describe(Status status, boolean fabricsCommand) {
        Optional<StatusCode> named = StatusCode.lookup(status, fabricsCommand);
        String name = named.map(Enum::name).orElse("UNKNOWN");
        String text = String.format("%s (0x%04x)", name, status.toField());
        return named.map(c -> text + ": " + c.title()).orElse(text);
    }

    public Status status() {
        return status;
    }

    /** The named code, if the status is one the catalogue knows (in the fabrics meaning for fabrics commands). */
    public Optional<StatusCode> statusCode() {
        return StatusCode.lookup(status, fabricsCommand);
    }

    /** What was being done, e.g. "Read nsid 1 slba 100 blocks 8". */
    public String command() {
        return command;
    }

    /** True when the controller set Do Not Retry. */
    public boolean doNotRetry() {
        return status.dnr();
    }
}
