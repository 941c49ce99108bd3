package io.nvmf4j.verbs.softiwarp.ddp;

import java.nio.ByteBuffer;

/**
 * Byte layout of the start of every FPDU: the 2-byte MPA ULPDU length (RFC 5044 4.1), the DDP control byte
 * (RFC 5041 4.2: T tagged 0x80, L last 0x40, 4 reserved bits, 2-bit DDP version) and the RDMAP control byte
 * (RFC 5040 4.2: 2-bit RDMAP version, 2 reserved bits, 4-bit opcode); siw's {@code struct iwarp_ctrl}.
 * All offsets here count from the first byte of the FPDU (the MPA length). Big-endian.
 */
public final class DdpHeader {
    private DdpHeader() {
    }

    /** Offset of the 16-bit MPA ULPDU length (bytes after this field, excluding pad and CRC). */
    public static final int OFFSET_MPA_LENGTH = 0;
    /** Offset of the DDP control byte. */
    public static final int OFFSET_DDP_CONTROL = 2;
    /** Offset of the RDMAP control byte. */
    public static final int OFFSET_RDMAP_CONTROL = 3;
    /** Length of the MPA length field. */
    public static final int MPA_HEADER_LENGTH = 2;
    /** Length of the MPA CRC. */
    public static final int MPA_CRC_LENGTH = 4;

    public static final int FLAG_TAGGED = 0x80;
    public static final int FLAG_LAST = 0x40;
    public static final int MASK_DDP_RESERVED = 0x3c;
    public static final int MASK_DDP_VERSION = 0x03;
    public static final int MASK_RDMAP_VERSION = 0xc0;
    public static final int MASK_RDMAP_RESERVED = 0x30;
    public static final int MASK_OPCODE = 0x0f;
    /** RFC 5041 4.2 / siw DDP_VERSION. */
    public static final int DDP_VERSION = 1;
    /** RFC 5040 4.2 / siw RDMAP_VERSION. */
    public static final int RDMAP_VERSION = 1;

    /** The DDP control byte for a segment. */
    public static int ddpControl(boolean tagged, boolean last) {
        return (tagged ? FLAG_TAGGED : 0) | (last ? FLAG_LAST : 0) | DDP_VERSION;
    }

    /** The RDMAP control byte for an opcode. */
    public static int rdmapControl(int opcode) {
        return (RDMAP_VERSION << 6) | (opcode & MASK_OPCODE);
    }

    public static int mpaLength(ByteBuffer fpdu) {
        return fpdu.getShort(OFFSET_MPA_LENGTH) & 0xffff;
    }

    public static boolean tagged(ByteBuffer fpdu) {
        return (fpdu.get(OFFSET_DDP_CONTROL) & FLAG_TAGGED) != 0;
    }

    public static boolean last(ByteBuffer fpdu) {
        return (fpdu.get(OFFSET_DDP_CONTROL) & FLAG_LAST) != 0;
    }

    public static int ddpVersion(ByteBuffer fpdu) {
        return fpdu.get(OFFSET_DDP_CONTROL) & MASK_DDP_VERSION;
    }

    public static int rdmapVersion(ByteBuffer fpdu) {
        return (fpdu.get(OFFSET_RDMAP_CONTROL) & MASK_RDMAP_VERSION) >>> 6;
    }

    public static int opcode(ByteBuffer fpdu) {
        return fpdu.get(OFFSET_RDMAP_CONTROL) & MASK_OPCODE;
    }

    /** Bytes of pad after a ULPDU so that MPA length field + ULPDU is a multiple of 4 (RFC 5044 4.1). */
    public static int padLength(int mpaLength) {
        return -(mpaLength + MPA_HEADER_LENGTH) & 3;
    }
}
