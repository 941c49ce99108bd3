package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.MalformedStructureException;

/**
 * ATTRIB bits 2:0 of Property Get / Property Set: the size of the property (NVMe Base 2.0, "Property Get command"
 * and "Property Set command";
 * SPDK {@code SPDK_NVMF_PROP_SIZE_4/8}).
 */
public enum PropertySize {
    FOUR_BYTES(0, 4),
    EIGHT_BYTES(1, 8);

    private final int code;
    private final int bytes;

    PropertySize(int code, int bytes) {
        this.code = code;
        this.bytes = bytes;
    }

    /** The ATTRIB value. */
    public int code() {
        return code;
    }

    public int bytes() {
        return bytes;
    }

    /** ATTRIB byte offset within the SQE, shared by Property Get and Set. */
    static final int OFFSET_ATTRIB = 40;

    /**
     * Decodes ATTRIB (SQE byte 40), refusing the reserved sizes 2h-7h and the reserved bits 7:3.
     */
    static PropertySize decodeAttrib(int attrib, String command) {
        if ((attrib & 0xF8) != 0) {
            throw new MalformedStructureException(String.format(
                    "%s byte 40 (ATTRIB): reserved bits 7:3 are set (%02xh)", command, attrib), OFFSET_ATTRIB);
        }
        return switch (attrib & 0x7) {
            case 0 -> FOUR_BYTES;
            case 1 -> EIGHT_BYTES;
            default -> throw new MalformedStructureException(String.format(
                    "%s byte 40 (ATTRIB): size %xh is reserved (0h = 4 bytes, 1h = 8 bytes)", command, attrib & 0x7),
                    OFFSET_ATTRIB);
        };
    }
}
