package io.nvmf4j.protocol;

import static io.nvmf4j.protocol.StatusCodeType.COMMAND_SPECIFIC;
import static io.nvmf4j.protocol.StatusCodeType.GENERIC;
import static io.nvmf4j.protocol.StatusCodeType.MEDIA_AND_DATA_INTEGRITY;
import static io.nvmf4j.protocol.StatusCodeType.PATH_RELATED;

import java.util.Optional;

/**
 * The named NVMe status codes nvmf4j produces or needs to recognise, with the spec's title for each. Names follow
 * Linux {@code NVME_SC_*} ({@code include/linux/nvme.h}); values are the SCT/SC pairs of the NVMe Base 2.0 status
 * code tables
 * (generic, command specific, media and data integrity, path related) and of the NVM Command
 * Set 1.0 (command-set-specific codes from 80h). The fabrics codes are the Connect and Discovery codes
 * of NVMe-oF 1.1 (Connect response and discovery log page), which Linux writes {@code NVME_SC_CONNECT_*}
 * (0x180-0x184) and
 * SPDK {@code SPDK_NVMF_FABRIC_SC_*}.
 *
 * <p>Command-specific values overlap between command sets: SCT 1h / SC 80h is "Conflicting Attributes" for an NVM
 * I/O command and "Incompatible Format" for a Connect. {@link #lookup(int, int, boolean)} takes the context.
 */
public enum StatusCode {
    // Generic Command Status (SCT 0h), NVMe Base 2.0.
    SUCCESS(GENERIC, 0x00, "Successful Completion"),
    INVALID_OPCODE(GENERIC, 0x01, "Invalid Command Opcode"),
    INVALID_FIELD(GENERIC, 0x02, "Invalid Field in Command"),
    CMDID_CONFLICT(GENERIC, 0x03, "Command ID Conflict"),
    DATA_XFER_ERROR(GENERIC, 0x04, "Data Transfer Error"),
    POWER_LOSS(GENERIC, 0x05, "Commands Aborted due to Power Loss Notification"),
    INTERNAL(GENERIC, 0x06, "Internal Error"),
    ABORT_REQ(GENERIC, 0x07, "Command Abort Requested"),
    ABORT_QUEUE(GENERIC, 0x08, "Command Aborted due to SQ Deletion"),
    FUSED_FAIL(GENERIC, 0x09, "Command Aborted due to Failed Fused Command"),
    FUSED_MISSING(GENERIC, 0x0A, "Command Aborted due to Missing Fused Command"),
    INVALID_NS(GENERIC, 0x0B, "Invalid Namespace or Format"),
    CMD_SEQ_ERROR(GENERIC, 0x0C, "Command Sequence Error"),
    SGL_INVALID_LAST(GENERIC, 0x0D, "Invalid SGL Segment Descriptor"),
    SGL_INVALID_COUNT(GENERIC, 0x0E, "Invalid Number of SGL Descriptors"),
    SGL_INVALID_DATA(GENERIC, 0x0F, "Data SGL Length Invalid"),
    SGL_INVALID_METADATA(GENERIC, 0x10, "Metadata SGL Length Invalid"),
    SGL_INVALID_TYPE(GENERIC, 0x11, "SGL Descriptor Type Invalid"),
    CMB_INVALID_USE(GENERIC, 0x12, "Invalid Use of Controller Memory Buffer"),
    PRP_INVALID_OFFSET(GENERIC, 0x13, "PRP Offset Invalid"),
    ATOMIC_WU_EXCEEDED(GENERIC, 0x14, "Atomic Write Unit Exceeded"),
    OP_DENIED(GENERIC, 0x15, "Operation Denied"),
    SGL_INVALID_OFFSET(GENERIC, 0x16, "SGL Offset Invalid"),
    /** Defined by NVMe 1.2.1 and still by Linux ({@code NVME_SC_SGL_INVALID_SUBTYPE}); reserved since NVMe 1.3. */
    SGL_INVALID_SUBTYPE(GENERIC, 0x17, "SGL Descriptor Subtype Invalid"),
    HOST_ID_INCONSIST(GENERIC, 0x18, "Host Identifier Inconsistent Format"),
    KA_TIMEOUT_EXPIRED(GENERIC, 0x19, "Keep Alive Timer Expired"),
    KA_TIMEOUT_INVALID(GENERIC, 0x1A, "Keep Alive Timeout Invalid"),
    ABORTED_PREEMPT_ABORT(GENERIC, 0x1B, "Command Aborted due to Preempt and Abort"),
    SANITIZE_FAILED(GENERIC, 0x1C, "Sanitize Failed"),
    SANITIZE_IN_PROGRESS(GENERIC, 0x1D, "Sanitize In Progress"),
    SGL_INVALID_GRANULARITY(GENERIC, 0x1E, "SGL Data Block Granularity Invalid"),
    CMD_NOT_SUP_CMB_QUEUE(GENERIC, 0x1F, "Command Not Supported for Queue in CMB"),
    NS_WRITE_PROTECTED(GENERIC, 0x20, "Namespace is Write Protected"),
    CMD_INTERRUPTED(GENERIC, 0x21, "Command Interrupted"),
    TRANSIENT_TR_ERR(GENERIC, 0x22, "Transient Transport Error"),
    /** A CSI the controller does not support (Linux {@code NVME_SC_INVALID_IO_CMD_SET}). */
    INVALID_IO_CMD_SET(GENERIC, 0x2C, "Invalid I/O Command Set"),
    // Generic Command Status, NVM Command Set specific range (80h-BFh), NVM Command Set 1.0.
    LBA_RANGE(GENERIC, 0x80, "LBA Out of Range"),
    CAP_EXCEEDED(GENERIC, 0x81, "Capacity Exceeded"),
    NS_NOT_READY(GENERIC, 0x82, "Namespace Not Ready"),
    RESERVATION_CONFLICT(GENERIC, 0x83, "Reservation Conflict"),
    FORMAT_IN_PROGRESS(GENERIC, 0x84, "Format In Progress"),

    // Command Specific Status (SCT 1h), admin commands, NVMe Base 2.0.
    CQ_INVALID(COMMAND_SPECIFIC, 0x00, "Completion Queue Invalid"),
    QID_INVALID(COMMAND_SPECIFIC, 0x01, "Invalid Queue Identifier"),
    QUEUE_SIZE(COMMAND_SPECIFIC, 0x02, "Invalid Queue Size"),
    ABORT_LIMIT(COMMAND_SPECIFIC, 0x03, "Abort Command Limit Exceeded"),
    ASYNC_LIMIT(COMMAND_SPECIFIC, 0x05, "Asynchronous Event Request Limit Exceeded"),
    FIRMWARE_SLOT(COMMAND_SPECIFIC, 0x06, "Invalid Firmware Slot"),
    FIRMWARE_IMAGE(COMMAND_SPECIFIC, 0x07, "Invalid Firmware Image"),
    INVALID_VECTOR(COMMAND_SPECIFIC, 0x08, "Invalid Interrupt Vector"),
    INVALID_LOG_PAGE(COMMAND_SPECIFIC, 0x09, "Invalid Log Page"),
    INVALID_FORMAT(COMMAND_SPECIFIC, 0x0A, "Invalid Format"),
    FW_NEEDS_CONV_RESET(COMMAND_SPECIFIC, 0x0B, "Firmware Activation Requires Conventional Reset"),
    INVALID_QUEUE(COMMAND_SPECIFIC, 0x0C, "Invalid Queue Deletion"),
    FEATURE_NOT_SAVEABLE(COMMAND_SPECIFIC, 0x0D, "Feature Identifier Not Saveable"),
    FEATURE_NOT_CHANGEABLE(COMMAND_SPECIFIC, 0x0E, "Feature Not Changeable"),
    FEATURE_NOT_PER_NS(COMMAND_SPECIFIC, 0x0F, "Feature Not Namespace Specific"),
    FW_NEEDS_SUBSYS_RESET(COMMAND_SPECIFIC, 0x10, "Firmware Activation Requires NVM Subsystem Reset"),
    FW_NEEDS_RESET(COMMAND_SPECIFIC, 0x11, "Firmware Activation Requires Controller Level Reset"),
    FW_NEEDS_MAX_TIME(COMMAND_SPECIFIC, 0x12, "Firmware Activation Requires Maximum Time Violation"),
    FW_ACTIVATE_PROHIBITED(COMMAND_SPECIFIC, 0x13, "Firmware Activation Prohibited"),
    OVERLAPPING_RANGE(COMMAND_SPECIFIC, 0x14, "Overlapping Range"),
    NS_INSUFFICIENT_CAP(COMMAND_SPECIFIC, 0x15, "Namespace Insufficient Capacity"),
    NS_ID_UNAVAILABLE(COMMAND_SPECIFIC, 0x16, "Namespace Identifier Unavailable"),
    NS_ALREADY_ATTACHED(COMMAND_SPECIFIC, 0x18, "Namespace Already Attached"),
    NS_IS_PRIVATE(COMMAND_SPECIFIC, 0x19, "Namespace Is Private"),
    NS_NOT_ATTACHED(COMMAND_SPECIFIC, 0x1A, "Namespace Not Attached"),
    THIN_PROV_NOT_SUPP(COMMAND_SPECIFIC, 0x1B, "Thin Provisioning Not Supported"),
    CTRL_LIST_INVALID(COMMAND_SPECIFIC, 0x1C, "Controller List Invalid"),
    ANA_GROUP_ID_INVALID(COMMAND_SPECIFIC, 0x24, "ANA Group Identifier Invalid"),
    ANA_ATTACH_FAILED(COMMAND_SPECIFIC, 0x25, "ANA Attach Failed"),
    // Command Specific Status, NVM I/O commands (80h-BFh), NVM Command Set 1.0.
    BAD_ATTRIBUTES(COMMAND_SPECIFIC, 0x80, "Conflicting Attributes"),
    INVALID_PI(COMMAND_SPECIFIC, 0x81, "Invalid Protection Information"),
    READ_ONLY(COMMAND_SPECIFIC, 0x82, "Attempted Write to Read Only Range"),
    // Command Specific Status, fabrics commands, NVMe-oF 1.1 (Linux NVME_SC_CONNECT_*).
    CONNECT_FORMAT(COMMAND_SPECIFIC, 0x80, "Incompatible Format", true),
    CONNECT_CTRL_BUSY(COMMAND_SPECIFIC, 0x81, "Controller Busy", true),
    CONNECT_INVALID_PARAM(COMMAND_SPECIFIC, 0x82, "Connect Invalid Parameters", true),
    CONNECT_RESTART_DISC(COMMAND_SPECIFIC, 0x83, "Connect Restart Discovery", true),
    CONNECT_INVALID_HOST(COMMAND_SPECIFIC, 0x84, "Connect Invalid Host", true),
    DISCOVERY_RESTART(COMMAND_SPECIFIC, 0x90, "Discover Restart", true),
    AUTH_REQUIRED(COMMAND_SPECIFIC, 0x91, "Authentication Required", true),

    // Media and Data Integrity Errors (SCT 2h), NVMe Base 2.0.
    WRITE_FAULT(MEDIA_AND_DATA_INTEGRITY, 0x80, "Write Fault"),
    READ_ERROR(MEDIA_AND_DATA_INTEGRITY, 0x81, "Unrecovered Read Error"),
    GUARD_CHECK(MEDIA_AND_DATA_INTEGRITY, 0x82, "End-to-end Guard Check Error"),
    APPTAG_CHECK(MEDIA_AND_DATA_INTEGRITY, 0x83, "End-to-end Application Tag Check Error"),
    REFTAG_CHECK(MEDIA_AND_DATA_INTEGRITY, 0x84, "End-to-end Reference Tag Check Error"),
    COMPARE_FAILED(MEDIA_AND_DATA_INTEGRITY, 0x85, "Compare Failure"),
    ACCESS_DENIED(MEDIA_AND_DATA_INTEGRITY, 0x86, "Access Denied"),
    UNWRITTEN_BLOCK(MEDIA_AND_DATA_INTEGRITY, 0x87, "Deallocated or Unwritten Logical Block"),

    // Path Related Status (SCT 3h), NVMe Base 2.0.
    INTERNAL_PATH_ERROR(PATH_RELATED, 0x00, "Internal Path Error"),
    ANA_PERSISTENT_LOSS(PATH_RELATED, 0x01, "Asymmetric Access Persistent Loss"),
    ANA_INACCESSIBLE(PATH_RELATED, 0x02, "Asymmetric Access Inaccessible"),
    ANA_TRANSITION(PATH_RELATED, 0x03, "Asymmetric Access Transition"),
    CTRL_PATH_ERROR(PATH_RELATED, 0x60, "Controller Pathing Error"),
    HOST_PATH_ERROR(PATH_RELATED, 0x70, "Host Pathing Error"),
    HOST_ABORTED_CMD(PATH_RELATED, 0x71, "Command Aborted By Host");

    private final StatusCodeType type;
    private final int sc;
    private final String title;
    private final boolean fabrics;
    @SuppressWarnings("ImmutableEnumChecker") // Status is an immutable record; the checker trusts only @Immutable
    private final Status status;

    StatusCode(StatusCodeType type, int sc, String title) {
        this(type, sc, title, false);
    }

    StatusCode(StatusCodeType type, int sc, String title, boolean fabrics) {
        this.type = type;
        this.sc = sc;
        this.title = title;
        this.fabrics = fabrics;
        this.status = Status.of(type, sc);
    }

    public StatusCodeType type() {
        return type;
    }

    public int sc() {
        return sc;
    }

    /** The spec's title, e.g. "Invalid Field in Command". */
    public String title() {
        return title;
    }

    /** True for the codes that only fabrics commands (Connect, discovery Get Log Page) return. */
    public boolean isFabrics() {
        return fabrics;
    }

    /** The 11-bit {@code sct << 8 | sc} value, equal to Linux's {@code NVME_SC_*} constant. */
    public int code() {
        return type.value() << Status.SCT_SHIFT | sc;
    }

    /** This code as a status with no flags. */
    public Status status() {
        return status;
    }

    /** This code with Do Not Retry set: what a target returns for an error that retrying cannot cure. */
    public Status withDnr() {
        return status.withDnr();
    }

    /** "INVALID_FIELD: Invalid Field in Command", the form nvme-cli prints. */
    public String humanName() {
        return name() + ": " + title;
    }

    /**
     * The named code for an SCT/SC pair. For a fabrics command (Connect, Property Get/Set, Disconnect, and the
     * Get Log Page of a discovery controller) the fabrics meaning of a command-specific code wins; for other
     * commands the NVM command set meaning does.
     */
    public static Optional<StatusCode> lookup(int sct, int sc, boolean fabricsCommand) {
        StatusCode other = null;
        for (StatusCode c : values()) {
            if (c.type.value() == sct && c.sc == sc) {
                if (c.fabrics == fabricsCommand) {
                    return Optional.of(c);
                }
                other = c;
            }
        }
        return Optional.ofNullable(other);
    }

    public static Optional<StatusCode> lookup(Status status, boolean fabricsCommand) {
        return lookup(status.sct(), status.sc(), fabricsCommand);
    }

    /**
     * One log line for a status: {@code "LBA_RANGE|DNR (sct 0h sc 80h): LBA Out of Range"}; an unnamed code
     * prints as {@code "UNKNOWN (sct 5h sc 12h)"}.
     */
    public static String describe(Status status, boolean fabricsCommand) {
        StringBuilder b = new StringBuilder();
        Optional<StatusCode> named = lookup(status, fabricsCommand);
        b.append(named.map(Enum::name).orElse("UNKNOWN"));
        if (status.dnr()) {
            b.append("|DNR");
        }
        if (status.more()) {
            b.append("|MORE");
        }
        if (status.crd() != 0) {
            b.append("|CRD").append(status.crd());
        }
        b.append(String.format(" (sct %xh sc %02xh)", status.sct(), status.sc()));
        named.ifPresent(c -> b.append(": ").append(c.title));
        return b.toString();
    }
}
