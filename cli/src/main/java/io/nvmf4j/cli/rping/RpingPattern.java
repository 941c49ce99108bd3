package io.nvmf4j.cli.rping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The data rping's client puts in its start buffer for ping {@code n} ({@code rping_test_client()}):
 * {@code snprintf("rdma-ping-%d: ", n)}, then ASCII characters ascending from {@code 'A' + n % 58},
 * wrapping after {@code 'z'} (122) back to {@code 'A'} (65), and a NUL in the last byte. Knowing it,
 * a server can check every byte it read, and a client every byte it got back.
 */
public final class RpingPattern {

    /** {@code RPING_MIN_BUFSIZE}: {@code sizeof("2147483647") + sizeof("rdma-ping-%d: ")}. */
    public static final int MIN_SIZE = 26;
    /** {@code RPING_BUFSIZE - 1}: the largest {@code -S} rping accepts. */
    public static final int MAX_SIZE = 64 * 1024 - 1;
    /** rping's default {@code -S}. */
    public static final int DEFAULT_SIZE = 64;

    private static final int FIRST = 'A';
    private static final int LAST = 'z';

    private RpingPattern() {
    }

    /** The prefix of ping {@code ping}: {@code "rdma-ping-<n>: "}. */
    static String prefix(int ping) {
        return "rdma-ping-" + ping + ": ";
    }

    /** Byte {@code i} of ping {@code ping} with buffer size {@code size}. */
    static byte expectedByte(int ping, int size, int i, byte[] prefix) {
        if (i == size - 1) {
            return 0;
        }
        if (i < prefix.length) {
            return prefix[i];
        }
        int start = FIRST + Integer.remainderUnsigned(ping, LAST - FIRST + 1);
        int c = FIRST + (start - FIRST + (i - prefix.length)) % (LAST - FIRST + 1);
        return (byte) c;
    }

    /** Fills {@code buffer[0, size)} with ping {@code ping}'s data, as rping's client does. */
    public static void fill(MemorySegment buffer, int size, int ping) {
        checkSize(buffer, size);
        byte[] prefix = prefix(ping).getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < size; i++) {
            buffer.set(ValueLayout.JAVA_BYTE, i, expectedByte(ping, size, i, prefix));
        }
    }

    /** The offset of the first byte of {@code buffer[0, size)} that is not ping {@code ping}'s, or -1. */
    public static int firstMismatch(MemorySegment buffer, int size, int ping) {
        checkSize(buffer, size);
        byte[] prefix = prefix(ping).getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < size; i++) {
            if (buffer.get(ValueLayout.JAVA_BYTE, i) != expectedByte(ping, size, i, prefix)) {
                return i;
            }
        }
        return -1;
    }

    /** The C string at the start of {@code buffer} (up to the first NUL, at most {@code max} bytes). */
    public static String text(MemorySegment buffer, int max) {
        int n = cStringLength(buffer, max);
        byte[] bytes = buffer.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** {@code strnlen(buffer, max)}. */
    public static int cStringLength(MemorySegment buffer, int max) {
        int limit = (int) Math.min(max, buffer.byteSize());
        for (int i = 0; i < limit; i++) {
            if (buffer.get(ValueLayout.JAVA_BYTE, i) == 0) {
                return i;
            }
        }
        return limit;
    }

    private static void checkSize(MemorySegment buffer, int size) {
        if (size < 1 || size > buffer.byteSize()) {
            throw new IllegalArgumentException("size " + size + " outside a buffer of " + buffer.byteSize() + " bytes");
        }
    }
}
