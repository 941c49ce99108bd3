package io.nvmf4j.verbs.wire;

import java.nio.ByteBuffer;

/**
 * MPA framing of one ULPDU into an FPDU (RFC 5044, 4.1 and 4.4, no markers):
 * {@code ULPDU_Length(16) | ULPDU | PAD (to a multiple of 4 from the FPDU start) | CRC(32)}. Without negotiated
 * CRC the trailer is sent as zeros (RFC 5044, 4.4), which Linux siw also does.
 */
final class Fpdu {
    private Fpdu() {
    }

    /** Pad bytes after a ULPDU of this length. */
    static int padLength(int ulpduLength) {
        return (4 - ((2 + ulpduLength) & 3)) & 3;
    }

    /** A correct FPDU around {@code ulpdu}. */
    static byte[] frame(byte[] ulpdu, boolean crc) {
        return frame(ulpdu, ulpdu.length, crc, false);
    }

    /**
     * An FPDU whose length field says {@code declaredLength} (the bytes sent are still {@code ulpdu}, padded);
     * {@code corruptCrc} flips the CRC so it no longer matches.
     */
    static byte[] frame(byte[] ulpdu, int declaredLength, boolean crc, boolean corruptCrc) {
        int pad = padLength(ulpdu.length);
        ByteBuffer out = ByteBuffer.allocate(2 + ulpdu.length + pad + 4);
        out.putShort((short) declaredLength).put(ulpdu).put(new byte[pad]);
        byte[] trailer = crc ? MpaCrc.trailer(out.array(), 0, out.position()) : new byte[4];
        if (corruptCrc) {
            trailer[0] ^= 0x5a;
        }
        out.put(trailer);
        return out.array();
    }
}
