package io.nvmf4j.protocol.admin;

import java.util.Optional;

/**
 * Admin command opcodes (NVMe Base 2.0, Figure 28 "Opcodes for Admin Commands"). Fabrics commands (7Fh) are
 * not listed here: they live in {@code io.nvmf4j.protocol.fabrics}.
 *
 * <p>Linux: {@code enum nvme_admin_opcode}; SPDK: {@code enum spdk_nvme_admin_opcode}.
 */
public enum AdminOpcode {
    DELETE_IO_SQ(0x00),
    CREATE_IO_SQ(0x01),
    GET_LOG_PAGE(0x02),
    DELETE_IO_CQ(0x04),
    CREATE_IO_CQ(0x05),
    IDENTIFY(0x06),
    ABORT(0x08),
    SET_FEATURES(0x09),
    GET_FEATURES(0x0A),
    ASYNC_EVENT_REQUEST(0x0C),
    NAMESPACE_MANAGEMENT(0x0D),
    FIRMWARE_COMMIT(0x10),
    FIRMWARE_IMAGE_DOWNLOAD(0x11),
    DEVICE_SELF_TEST(0x14),
    NAMESPACE_ATTACHMENT(0x15),
    KEEP_ALIVE(0x18),
    DIRECTIVE_SEND(0x19),
    DIRECTIVE_RECEIVE(0x1A),
    VIRTUALIZATION_MANAGEMENT(0x1C),
    NVME_MI_SEND(0x1D),
    NVME_MI_RECEIVE(0x1E),
    CAPACITY_MANAGEMENT(0x20),
    LOCKDOWN(0x24),
    DOORBELL_BUFFER_CONFIG(0x7C),
    FORMAT_NVM(0x80),
    SECURITY_SEND(0x81),
    SECURITY_RECEIVE(0x82),
    SANITIZE(0x84),
    GET_LBA_STATUS(0x86);

    private static final AdminOpcode[] BY_CODE = new AdminOpcode[256];

    static {
        for (AdminOpcode op : values()) {
            BY_CODE[op.code] = op;
        }
    }

    private final int code;

    AdminOpcode(int code) {
        this.code = code;
    }

    /** The opcode byte (CDW0 bits 7:0). */
    public int code() {
        return code;
    }

    /** The opcode for {@code code}, or empty when the byte names no admin command known here. */
    public static Optional<AdminOpcode> fromCode(int code) {
        return (code < 0 || code > 0xFF) ? Optional.empty() : Optional.ofNullable(BY_CODE[code]);
    }

    @Override
    public String toString() {
        return String.format("%s(%02xh)", name(), code);
    }
}
