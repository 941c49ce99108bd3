package io.nvmf4j.verbs.softiwarp.mpa;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An MPA Request or Reply frame (RFC 5044 section 7.1; {@code struct mpa_rr} in Linux siw's iwarp.h):
 * a 16-byte key ("MPA ID Req Frame" / "MPA ID Rep Frame"), one flags byte (M = markers 0x80, C = CRC 0x40,
 * R = reject 0x20, H = enhanced connection setup 0x10 from RFC 6581, siw's GSO_EXP 0x08), the revision byte,
 * a 16-bit big-endian private data length (at most 512) and the private data. For MPA revision 2 with H set,
 * the private data starts with the RFC 6581 IRD/ORD words ({@link MpaV2IrdOrd}); {@link #privateData()} here is
 * the raw wire private data including them.
 *
 * @param reply       true for "MPA ID Rep Frame"
 * @param markers     M flag
 * @param crc         C flag
 * @param reject      R flag (only in replies)
 * @param enhanced    H flag (RFC 6581)
 * @param gsoExp      siw's private GSO_EXP flag (0x08; RFC reserved, siw sets it only with try_gso)
 * @param revision    MPA revision (1 or 2)
 * @param privateData the raw private data
 */
public record MpaFrame(
        boolean reply, boolean markers, boolean crc, boolean reject, boolean enhanced, boolean gsoExp,
        int revision, byte[] privateData) {

    /** RFC 5044 7.1: "MPA ID Req Frame". */
    public static final byte[] KEY_REQUEST = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    /** RFC 5044 7.1: "MPA ID Rep Frame". */
    public static final byte[] KEY_REPLY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    /** Key length. */
    public static final int KEY_LENGTH = 16;
    /** Offset of the flags byte. */
    public static final int OFFSET_FLAGS = 16;
    /** Offset of the revision byte. */
    public static final int OFFSET_REVISION = 17;
    /** Offset of the private data length. */
    public static final int OFFSET_PD_LENGTH = 18;
    /** Header length before the private data. */
    public static final int HEADER_LENGTH = 20;
    /** RFC 5044 7.1: private data is at most 512 bytes (siw: MPA_MAX_PRIVDATA = RDMA_MAX_PRIVATE_DATA 256+... uses 512). */
    public static final int MAX_PRIVATE_DATA = 512;

    public static final int FLAG_MARKERS = 0x80;
    public static final int FLAG_CRC = 0x40;
    public static final int FLAG_REJECT = 0x20;
    public static final int FLAG_ENHANCED = 0x10;
    public static final int FLAG_GSO_EXP = 0x08;

    public MpaFrame {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("MPA private data longer than 512 bytes: " + privateData.length);
        }
        if (revision < 0 || revision > 255) {
            throw new IllegalArgumentException("MPA revision out of range: " + revision);
        }
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /** The flags byte. */
    public int flags() {
        return (markers ? FLAG_MARKERS : 0) | (crc ? FLAG_CRC : 0) | (reject ? FLAG_REJECT : 0)
                | (enhanced ? FLAG_ENHANCED : 0) | (gsoExp ? FLAG_GSO_EXP : 0);
    }

    /** Total encoded length. */
    public int encodedLength() {
        return HEADER_LENGTH + privateData.length;
    }

    /** The frame on the wire. */
    public byte[] encode() {
        ByteBuffer out = ByteBuffer.allocate(encodedLength());
        out.put(reply ? KEY_REPLY : KEY_REQUEST);
        out.put((byte) flags());
        out.put((byte) revision);
        out.putShort((short) privateData.length);
        out.put(privateData);
        return out.array();
    }

    /**
     * Decodes the fixed 20-byte header and returns the private data length it announces.
     *
     * @throws MpaException if the key is neither request nor reply, or the length is above 512
     */
    public static int privateDataLength(byte[] header) throws MpaException {
        if (header.length < HEADER_LENGTH) {
            throw new MpaException("MPA header needs 20 bytes, got " + header.length);
        }
        int length = ((header[OFFSET_PD_LENGTH] & 0xff) << 8) | (header[OFFSET_PD_LENGTH + 1] & 0xff);
        if (length > MAX_PRIVATE_DATA) {
            throw new MpaException("MPA private data length " + length + " exceeds 512 (RFC 5044 7.1)");
        }
        return length;
    }

    /**
     * Decodes a complete frame (header + private data).
     *
     * @throws MpaException for an unknown key, a length above 512 or a length not matching the bytes given
     */
    public static MpaFrame decode(byte[] frame) throws MpaException {
        int pdLength = privateDataLength(frame);
        if (frame.length != HEADER_LENGTH + pdLength) {
            throw new MpaException("MPA frame announces " + pdLength + " bytes of private data, carries "
                    + (frame.length - HEADER_LENGTH));
        }
        byte[] key = Arrays.copyOf(frame, KEY_LENGTH);
        boolean reply;
        if (Arrays.equals(key, KEY_REQUEST)) {
            reply = false;
        } else if (Arrays.equals(key, KEY_REPLY)) {
            reply = true;
        } else {
            throw new MpaException("not an MPA request/reply key: " + printable(key));
        }
        int flags = frame[OFFSET_FLAGS] & 0xff;
        int revision = frame[OFFSET_REVISION] & 0xff;
        return new MpaFrame(reply, (flags & FLAG_MARKERS) != 0, (flags & FLAG_CRC) != 0, (flags & FLAG_REJECT) != 0,
                (flags & FLAG_ENHANCED) != 0, (flags & FLAG_GSO_EXP) != 0, revision,
                Arrays.copyOfRange(frame, HEADER_LENGTH, frame.length));
    }

    private static String printable(byte[] key) {
        StringBuilder sb = new StringBuilder();
        for (byte b : key) {
            sb.append(b >= 0x20 && b < 0x7f ? (char) b : '.');
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MpaFrame f && reply == f.reply && markers == f.markers && crc == f.crc
                && reject == f.reject && enhanced == f.enhanced && gsoExp == f.gsoExp && revision == f.revision
                && Arrays.equals(privateData, f.privateData);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(privateData) * 31 + flags() * 7 + revision + (reply ? 1 : 0);
    }

    @Override
    public String toString() {
        return "MpaFrame[" + (reply ? "reply" : "request") + ", flags=0x" + Integer.toHexString(flags()) + ", rev="
                + revision + ", pd=" + privateData.length + "]";
    }
}
