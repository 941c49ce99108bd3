package io.nvmf4j.protocol.admin;

import java.nio.charset.StandardCharsets;

/** Test helper: write expected vectors at literal offsets, independent of the production constants. */
final class Bytes {

    private Bytes() {
    }

    static void le(byte[] b, int offset, long value, int width) {
        for (int i = 0; i < width; i++) {
            b[offset + i] = (byte) (value >>> (8 * i));
        }
    }

    static void ascii(byte[] b, int offset, String text) {
        byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, b, offset, t.length);
    }

    static void fill(byte[] b, int offset, int length, char c) {
        for (int i = 0; i < length; i++) {
            b[offset + i] = (byte) c;
        }
    }
}
