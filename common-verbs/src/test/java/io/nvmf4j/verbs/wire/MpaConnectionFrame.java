package io.nvmf4j.verbs.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An MPA Request or Reply frame (RFC 5044, 7.1; RFC 6581, 5 for revision 2), written out byte by byte so tests
 * can also build frames no correct implementation would send.
 *
 * <pre>
 *  0..15  Key            "MPA ID Req Frame" / "MPA ID Rep Frame"
 *  16     M C R S Res(4) markers 0x80, CRC 0x40, reject 0x20, enhanced connection setup (RFC 6581) 0x10
 *  17     Rev            1 or 2
 *  18..19 PD_Length      big-endian, at most 512 (RFC 5044, 7.1: MPA_MAX_PRIVDATA in siw's iwarp.h)
 *  20..   private data   (revision 2 with S set: first 4 bytes are the IRD/ORD words of RFC 6581, 5.1)
 * </pre>
 *
 * @param key         the 16 key bytes as received
 * @param flags       byte 16
 * @param revision    byte 17
 * @param privateData the private data (PD_Length bytes)
 */
record MpaConnectionFrame(byte[] key, int flags, int revision, byte[] privateData) {

    static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    static final int FLAG_MARKERS = 0x80;
    static final int FLAG_CRC = 0x40;
    static final int FLAG_REJECT = 0x20;
    static final int FLAG_ENHANCED = 0x10;
    static final int HEADER_LENGTH = 20;
    static final int MAX_PRIVATE_DATA = 512;

    /** RFC 6581, 5.1: the peer-to-peer bit of the IRD word, and the RTR choices in the ORD word. */
    static final int IRD_PEER_TO_PEER = 0x8000;
    static final int ORD_WRITE_RTR = 0x8000;
    static final int ORD_READ_RTR = 0x4000;
    static final int IRD_ORD_MASK = 0x3fff;

    /** Encodes a frame whose PD_Length field says {@code declaredPdLength} (need not match the data sent). */
    static byte[] encode(byte[] key, int flags, int revision, int declaredPdLength, byte[] privateData) {
        ByteBuffer out = ByteBuffer.allocate(HEADER_LENGTH + privateData.length);
        out.put(key, 0, 16);
        out.put((byte) flags);
        out.put((byte) revision);
        out.putShort((short) declaredPdLength);
        out.put(privateData);
        return out.array();
    }

    /** A well-formed MPA revision 2 request with enhanced connection setup: IRD/ORD words, then the ULP data. */
    static byte[] enhancedRequest(boolean crc, int ird, int ord, byte[] ulpPrivateData) {
        byte[] pd = enhancedPrivateData(ird, ord, ulpPrivateData);
        return encode(REQUEST_KEY, FLAG_ENHANCED | (crc ? FLAG_CRC : 0), 2, pd.length, pd);
    }

    /** RFC 6581, 5.1: IRD word, ORD word (big-endian, no peer-to-peer, no RTR), then the ULP's private data. */
    static byte[] enhancedPrivateData(int ird, int ord, byte[] ulpPrivateData) {
        ByteBuffer pd = ByteBuffer.allocate(4 + ulpPrivateData.length);
        pd.putShort((short) (ird & IRD_ORD_MASK));
        pd.putShort((short) (ord & IRD_ORD_MASK));
        pd.put(ulpPrivateData);
        return pd.array();
    }

    /** Parses a complete frame (header plus exactly PD_Length bytes). */
    static MpaConnectionFrame decode(byte[] header, byte[] privateData) {
        return new MpaConnectionFrame(Arrays.copyOf(header, 16), header[16] & 0xff, header[17] & 0xff,
                privateData);
    }

    /** PD_Length of a received 20-byte header. */
    static int declaredPdLength(byte[] header) {
        return ((header[18] & 0xff) << 8) | (header[19] & 0xff);
    }

    boolean isReplyKey() {
        return Arrays.equals(key, REPLY_KEY);
    }

    boolean markers() {
        return (flags & FLAG_MARKERS) != 0;
    }

    boolean crc() {
        return (flags & FLAG_CRC) != 0;
    }

    boolean reject() {
        return (flags & FLAG_REJECT) != 0;
    }

    boolean enhanced() {
        return (flags & FLAG_ENHANCED) != 0;
    }

    /** The ULP's private data: without the RFC 6581 IRD/ORD words when the frame is an enhanced one. */
    byte[] ulpPrivateData() {
        if (revision == 2 && enhanced() && privateData.length >= 4) {
            return Arrays.copyOfRange(privateData, 4, privateData.length);
        }
        return privateData;
    }

    int ird() {
        return ((privateData[0] & 0xff) << 8 | (privateData[1] & 0xff)) & IRD_ORD_MASK;
    }

    int ord() {
        return ((privateData[2] & 0xff) << 8 | (privateData[3] & 0xff)) & IRD_ORD_MASK;
    }

    @Override
    public String toString() {
        return "MpaConnectionFrame[key=" + new String(key, StandardCharsets.US_ASCII) + ", flags=0x"
                + Integer.toHexString(flags) + ", rev=" + revision + ", pd=" + privateData.length + " bytes]";
    }
}
