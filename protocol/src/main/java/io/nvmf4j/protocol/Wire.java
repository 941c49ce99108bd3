package io.nvmf4j.protocol;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Little-endian field access and size checks shared by the wire structures. NVMe and NVMe-oF fields are
 * little-endian (NVMe Base 2.0, "Conventions"); every accessor here is unaligned because capsules and CM
 * private data arrive at arbitrary offsets inside receive buffers.
 */
public final class Wire {

    public static final ValueLayout.OfShort LE_U16 = JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    public static final ValueLayout.OfInt LE_U32 = JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    public static final ValueLayout.OfLong LE_U64 = JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Wire() {
    }

    /**
     * Fails with a message naming the structure when {@code segment} holds fewer than {@code size} bytes; returns
     * the first {@code size} bytes as a slice otherwise. Decoders call this first so that no read can run past the
     * end of network input.
     */
    public static MemorySegment require(MemorySegment segment, long size, String structure) {
        if (segment == null) {
            throw new MalformedStructureException(structure + " needs " + size + " bytes, got none (null segment)");
        }
        if (segment.byteSize() < size) {
            throw new MalformedStructureException(
                    structure + " needs " + size + " bytes, got " + segment.byteSize() + " (truncated)");
        }
        return segment.asSlice(0, size);
    }

    /** Like {@link #require}, for a destination of an encoder; a short destination is a programming error. */
    public static MemorySegment requireDestination(MemorySegment segment, long size, String structure) {
        if (segment.byteSize() < size) {
            throw new IllegalArgumentException(
                    "cannot encode " + structure + " (" + size + " bytes) into " + segment.byteSize() + " bytes");
        }
        return segment.asSlice(0, size);
    }

    public static int u8(MemorySegment s, long offset) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, offset));
    }

    public static void u8(MemorySegment s, long offset, int value) {
        s.set(JAVA_BYTE, offset, (byte) value);
    }

    public static int u16(MemorySegment s, long offset) {
        return Short.toUnsignedInt(s.get(LE_U16, offset));
    }

    public static void u16(MemorySegment s, long offset, int value) {
        s.set(LE_U16, offset, (short) value);
    }

    /** 24-bit little-endian value (the length of a keyed SGL data block descriptor). */
    public static int u24(MemorySegment s, long offset) {
        return u8(s, offset) | u8(s, offset + 1) << 8 | u8(s, offset + 2) << 16;
    }

    public static void u24(MemorySegment s, long offset, int value) {
        u8(s, offset, value);
        u8(s, offset + 1, value >>> 8);
        u8(s, offset + 2, value >>> 16);
    }

    /** Unsigned 32-bit value as a long. */
    public static long u32(MemorySegment s, long offset) {
        return Integer.toUnsignedLong(s.get(LE_U32, offset));
    }

    public static void u32(MemorySegment s, long offset, long value) {
        s.set(LE_U32, offset, (int) value);
    }

    public static long u64(MemorySegment s, long offset) {
        return s.get(LE_U64, offset);
    }

    public static void u64(MemorySegment s, long offset, long value) {
        s.set(LE_U64, offset, value);
    }

    /** Checks a value against an unsigned field width before it is encoded, naming the field. */
    public static int checkUnsigned(String field, long value, int bits) {
        long max = (1L << bits) - 1;
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(field + " " + value + " does not fit in " + bits + " bits (0.." + max + ")");
        }
        return (int) value;
    }

    /** True when all bytes in [offset, offset+length) are zero. */
    public static boolean isZero(MemorySegment s, long offset, long length) {
        for (long i = 0; i < length; i++) {
            if (s.get(JAVA_BYTE, offset + i) != 0) {
                return false;
            }
        }
        return true;
    }

    /** Offset of the first non-zero byte in [offset, offset+length), or -1. */
    public static long firstNonZero(MemorySegment s, long offset, long length) {
        for (long i = 0; i < length; i++) {
            if (s.get(JAVA_BYTE, offset + i) != 0) {
                return offset + i;
            }
        }
        return -1;
    }
}
