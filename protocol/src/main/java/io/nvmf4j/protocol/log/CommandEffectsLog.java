package io.nvmf4j.protocol.log;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The 4096-byte Commands Supported and Effects log page (05h; NVMe Base 2.0, 5.16.1.6, Figures 210-211): one
 * 32-bit Commands Supported and Effects data structure per admin opcode (ACS0-ACS255, bytes 0-1023), then one per
 * I/O opcode of the command set named by the command's CSI (IOCS0-IOCS255, bytes 1024-2047), then 2048 reserved
 * bytes. An opcode whose CSUPP bit is clear is not supported.
 *
 * <p>Linux: {@code struct nvme_effects_log} ({@code NVME_CMD_EFFECTS_*}); SPDK:
 * {@code struct spdk_nvme_cmds_and_effect_log_page}.
 */
public final class CommandEffectsLog {

    public static final int SIZE = 4096;
    public static final int OFFSET_ACS = 0;
    public static final int OFFSET_IOCS = 1024;
    public static final int OPCODES = 256;

    /** CSUPP: the command is supported. */
    public static final int CSUPP = 1;
    /** LBCC: the command may change logical block content. */
    public static final int LBCC = 1 << 1;
    /** NCC: the command may change namespace capabilities. */
    public static final int NCC = 1 << 2;
    /** NIC: the command may change the namespace inventory. */
    public static final int NIC = 1 << 3;
    /** CCC: the command may change controller capabilities. */
    public static final int CCC = 1 << 4;

    private final MemorySegment segment;

    private CommandEffectsLog(MemorySegment segment) {
        this.segment = segment;
    }

    public static CommandEffectsLog wrap(MemorySegment segment) {
        if (segment.byteSize() < SIZE) {
            throw new MalformedStructureException(
                    "commands supported and effects log needs " + SIZE + " bytes, got " + segment.byteSize());
        }
        return new CommandEffectsLog(segment.asSlice(0, SIZE));
    }

    public static CommandEffectsLog allocate() {
        return new CommandEffectsLog(MemorySegment.ofArray(new byte[SIZE]));
    }

    public MemorySegment segment() {
        return segment;
    }

    /** ACS for an admin opcode. */
    public int admin(int opcode) {
        return (int) Wire.u32(segment, OFFSET_ACS + 4L * checkOpcode(opcode));
    }

    public CommandEffectsLog admin(int opcode, int effects) {
        Wire.u32(segment, OFFSET_ACS + 4L * checkOpcode(opcode), Integer.toUnsignedLong(effects));
        return this;
    }

    /** IOCS for an I/O opcode. */
    public int io(int opcode) {
        return (int) Wire.u32(segment, OFFSET_IOCS + 4L * checkOpcode(opcode));
    }

    public CommandEffectsLog io(int opcode, int effects) {
        Wire.u32(segment, OFFSET_IOCS + 4L * checkOpcode(opcode), Integer.toUnsignedLong(effects));
        return this;
    }

    private static int checkOpcode(int opcode) {
        if (opcode < 0 || opcode >= OPCODES) {
            throw new IllegalArgumentException("opcode " + opcode + " is not 0..255");
        }
        return opcode;
    }
}
