package io.nvmf4j.cli.host.nvmecli;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

/**
 * One field of an NVMe data structure (little-endian, NVMe Base 2.0, 1.4.2) as nvme-cli 2.3 prints it: in JSON
 * with the value type its {@code json_object_add_value_*} call gives it, in text with its {@code printf} format.
 *
 * @param name   nvme-cli's key (also the text label)
 * @param offset byte offset in the structure
 * @param kind   width and JSON type
 * @param length bytes (for {@link Kind#ASCII} and {@link Kind#HEX_BYTES}; else the kind's width)
 * @param hex    text as C's {@code %#x} (else decimal)
 */
public record RawField(String name, int offset, Kind kind, int length, boolean hex) {

    /** Width and the JSON type nvme-cli 2.3 gives a field (its util/json.h). */
    public enum Kind {
        /** 8-bit, {@code json_object_add_value_int}: a number. */
        U8(1),
        /** 16-bit, {@code json_object_add_value_int}: a number. */
        U16(2),
        /**
         * 32-bit, {@code json_object_add_value_uint}: in nvme-cli 2.3 that is {@code json_object_new_int(v)}, a
         * signed 32-bit number (a value with bit 31 set prints negative there, and so here).
         */
        U32(4),
        /** 64-bit, {@code json_object_add_value_uint64}: a number (json-c >= 0.14, as on Debian 12). */
        U64(8),
        /** 128-bit, {@code json_object_add_value_uint128}: a decimal STRING ({@code uint128_t_to_string}). */
        U128(16),
        /** 24-bit IEEE OUI: {@code ieee[2] << 16 | ieee[1] << 8 | ieee[0]}, text {@code %02x%02x%02x}. */
        IEEE(3),
        /** 16-byte UUID as libnvme's {@code nvme_uuid_to_string()}: 8-4-4-4-12 lower-case hex. */
        UUID(16),
        /** Lower-case hex of the bytes in order (nguid, eui64), a string. */
        HEX_BYTES(0),
        /** Fixed-size ASCII up to the first NUL, trailing spaces kept ({@code "%-.*s"}), a string. */
        ASCII(0);

        final int width;

        Kind(int width) {
            this.width = width;
        }
    }

    private static final ValueLayout.OfShort U16_LE = Wire.LE_U16;
    private static final ValueLayout.OfInt U32_LE = Wire.LE_U32;
    private static final ValueLayout.OfLong U64_LE = Wire.LE_U64;

    /** A number printed in decimal. */
    public static RawField dec(String name, int offset, Kind kind) {
        return new RawField(name, offset, kind, kind.width, false);
    }

    /** A number printed as {@code %#x} in text. */
    public static RawField hex(String name, int offset, Kind kind) {
        return new RawField(name, offset, kind, kind.width, true);
    }

    /** An ASCII or hex-bytes field of {@code length} bytes. */
    public static RawField bytes(String name, int offset, Kind kind, int length) {
        return new RawField(name, offset, kind, length, false);
    }

    /** The value as nvme-cli's JSON has it: Integer, Long, BigInteger or String. */
    public Object json(MemorySegment s) {
        return switch (kind) {
            case U8, U16, IEEE -> (int) unsigned(s);
            case U32 -> s.get(U32_LE, offset);
            case U64 -> {
                long v = s.get(U64_LE, offset);
                yield v >= 0 ? (Object) v : new BigInteger(Long.toUnsignedString(v));
            }
            case U128 -> u128(s).toString();
            case UUID -> uuid(s);
            case HEX_BYTES -> hexBytes(s);
            case ASCII -> ascii(s);
        };
    }

    /** The value as nvme-cli's text output prints it after {@code "name : "}. */
    public String text(MemorySegment s) {
        return switch (kind) {
            case U8, U16, U32, U64 -> {
                long v = unsigned(s);
                yield hex ? cHex(v) : Long.toUnsignedString(v);
            }
            case IEEE -> String.format("%06x", unsigned(s));
            case U128 -> u128(s).toString();
            case UUID -> uuid(s);
            case HEX_BYTES -> hexBytes(s);
            case ASCII -> ascii(s);
        };
    }

    /** The field as an unsigned number (U8..U64, IEEE). */
    public long unsigned(MemorySegment s) {
        return switch (kind) {
            case U8 -> Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, offset));
            case U16 -> Short.toUnsignedInt(s.get(U16_LE, offset));
            case U32 -> Integer.toUnsignedLong(s.get(U32_LE, offset));
            case U64 -> s.get(U64_LE, offset);
            case IEEE -> Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, offset))
                    | Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, offset + 1)) << 8
                    | Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, offset + 2)) << 16;
            default -> throw new IllegalStateException(name + " is not a number");
        };
    }

    private BigInteger u128(MemorySegment s) {
        byte[] be = new byte[17];   // leading zero byte: always positive
        for (int i = 0; i < 16; i++) {
            be[16 - i] = s.get(ValueLayout.JAVA_BYTE, offset + i);
        }
        return new BigInteger(be);
    }

    private String uuid(MemorySegment s) {
        StringBuilder sb = new StringBuilder(36);
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) {
                sb.append('-');
            }
            sb.append(String.format("%02x", s.get(ValueLayout.JAVA_BYTE, offset + i)));
        }
        return sb.toString();
    }

    private String hexBytes(MemorySegment s) {
        StringBuilder sb = new StringBuilder(2 * length);
        for (int i = 0; i < length; i++) {
            sb.append(String.format("%02x", s.get(ValueLayout.JAVA_BYTE, offset + i)));
        }
        return sb.toString();
    }

    private String ascii(MemorySegment s) {
        byte[] b = new byte[length];
        int n = 0;
        while (n < length) {
            byte c = s.get(ValueLayout.JAVA_BYTE, offset + n);
            if (c == 0) {
                break;
            }
            b[n++] = c;
        }
        return new String(b, 0, n, StandardCharsets.ISO_8859_1);
    }

    /** C's {@code %#x}: "0" for zero, "0x1f" otherwise. */
    public static String cHex(long v) {
        return v == 0 ? "0" : "0x" + Long.toHexString(v);
    }
}
