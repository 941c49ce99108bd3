package io.nvmf4j.protocol.io;

import java.util.Optional;

/**
 * NVM command set I/O opcodes (NVM Command Set 1.0, Figure 16). Linux: {@code enum nvme_opcode}; SPDK:
 * {@code enum spdk_nvme_nvm_opcode}.
 */
public enum IoOpcode {
    FLUSH(0x00),
    WRITE(0x01),
    READ(0x02),
    WRITE_UNCORRECTABLE(0x04),
    COMPARE(0x05),
    WRITE_ZEROES(0x08),
    DATASET_MANAGEMENT(0x09),
    VERIFY(0x0C),
    RESERVATION_REGISTER(0x0D),
    RESERVATION_REPORT(0x0E),
    RESERVATION_ACQUIRE(0x11),
    RESERVATION_RELEASE(0x15),
    COPY(0x19);

    private static final IoOpcode[] BY_CODE = new IoOpcode[256];

    static {
        for (IoOpcode op : values()) {
            BY_CODE[op.code] = op;
        }
    }

    private final int code;

    IoOpcode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /**
     * Data transfer direction from opcode bits 1:0 (NVMe Base 2.0, Figure 94): 01b host to controller, 10b controller
     * to host, 00b none, 11b bidirectional.
     */
    public static int dataTransfer(int opcode) {
        return opcode & 0x3;
    }

    public static Optional<IoOpcode> fromCode(int code) {
        return (code < 0 || code > 0xFF) ? Optional.empty() : Optional.ofNullable(BY_CODE[code]);
    }

    @Override
    public String toString() {
        return String.format("%s(%02xh)", name(), code);
    }
}
