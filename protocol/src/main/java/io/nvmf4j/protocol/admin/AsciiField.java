package io.nvmf4j.protocol.admin;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Fixed-width text fields of NVMe data structures. Two conventions exist on the wire:
 * <ul>
 *   <li>ASCII strings such as SN, MN and FR (NVMe Base 2.0, 1.5 "ASCII string"): printable characters 20h-7Eh,
 *       left justified and padded with spaces (Linux {@code memcpy_and_pad(.., ' ')} in nvmet, SPDK
 *       {@code spdk_strcpy_pad(.., ' ')});</li>
 *   <li>NQNs and transport addresses: UTF-8 / ASCII, terminated and padded with NUL bytes (Linux
 *       {@code strscpy()} into a zeroed buffer).</li>
 * </ul>
 * Decoding accepts either padding (the text ends at the first NUL, trailing spaces are dropped), as nvme-cli does
 * when it prints a discovery log from SPDK (space padded) or from Linux nvmet (NUL padded).
 */
public final class AsciiField {

    private AsciiField() {
    }

    /** Reads {@code length} bytes at {@code offset}: up to the first NUL, without trailing spaces. */
    public static String read(MemorySegment segment, long offset, int length) {
        byte[] bytes = new byte[length];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, bytes, 0, length);
        int end = 0;
        while (end < length && bytes[end] != 0) {
            end++;
        }
        while (end > 0 && bytes[end - 1] == ' ') {
            end--;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }

    /** Writes printable ASCII, left justified, padded with spaces (SN, MN, FR). */
    public static void writeSpacePadded(MemorySegment segment, long offset, int length, String field, String value) {
        byte[] bytes = checkedAscii(field, value, length);
        segment.asSlice(offset, length).fill((byte) ' ');
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, offset, bytes.length);
    }

    /** Writes a UTF-8 string padded with NUL bytes; at least one NUL must fit when {@code terminated}. */
    public static void writeNulPadded(MemorySegment segment, long offset, int length, String field, String value,
            boolean terminated) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        int max = terminated ? length - 1 : length;
        if (bytes.length > max) {
            throw new IllegalArgumentException(field + " is " + bytes.length + " bytes, at most " + max + " fit");
        }
        for (byte b : bytes) {
            if (b == 0) {
                throw new IllegalArgumentException(field + " contains a NUL byte");
            }
        }
        segment.asSlice(offset, length).fill((byte) 0);
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, offset, bytes.length);
    }

    /** Checks that a space-padded ASCII field holds only printable characters (20h-7Eh), as the spec requires. */
    public static void requirePrintable(MemorySegment segment, long offset, int length, String field) {
        for (int i = 0; i < length; i++) {
            int b = Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offset + i));
            if (b < 0x20 || b > 0x7E) {
                throw new MalformedStructureException(String.format(
                        "%s byte %d (offset %d) is %02xh, not printable ASCII", field, i, offset + i, b));
            }
        }
    }

    private static byte[] checkedAscii(String field, String value, int length) {
        if (value.length() > length) {
            throw new IllegalArgumentException(field + " \"" + value + "\" is longer than " + length + " characters");
        }
        byte[] bytes = new byte[value.length()];
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                throw new IllegalArgumentException(field + " contains non-printable or non-ASCII character at " + i);
            }
            bytes[i] = (byte) c;
        }
        return bytes;
    }
}
