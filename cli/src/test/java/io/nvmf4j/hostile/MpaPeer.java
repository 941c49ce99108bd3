package io.nvmf4j.hostile;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.zip.CRC32C;

/**
 * The MPA layer of a raw iWARP peer on a plain {@link SocketChannel} (RFC 5044 with RFC 6581 enhanced connection
 * setup), independent of any nvmf4j provider code: the request/reply frames of connection setup, then FPDU framing
 * (2-byte ULPDU length, ULPDU, pad to a 4-byte boundary, CRC32C). Every read has a deadline.
 */
final class MpaPeer implements AutoCloseable {

    /** RFC 5044 7.1 keys. */
    static final byte[] KEY_REQUEST = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    static final byte[] KEY_REPLY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    /** RFC 5044 7.1 flags byte: M(arkers), C(RC), R(eject); RFC 6581 3: H (enhanced setup). */
    static final int FLAG_MARKERS = 0x80;
    static final int FLAG_CRC = 0x40;
    static final int FLAG_REJECT = 0x20;
    static final int FLAG_ENHANCED = 0x10;
    /** RFC 5044 7.1: at most 512 bytes of private data. */
    static final int MAX_PRIVATE_DATA = 512;

    final SocketChannel channel;
    private final InputStream in;
    private boolean crc;

    private MpaPeer(SocketChannel channel, Duration readTimeout) throws IOException {
        this.channel = channel;
        channel.socket().setSoTimeout((int) readTimeout.toMillis());
        channel.socket().setTcpNoDelay(true);
        this.in = channel.socket().getInputStream();
    }

    /** A TCP connection to the target, nothing sent yet. */
    static MpaPeer open(InetSocketAddress target, Duration readTimeout) throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            ch.socket().connect(target, 5000);
            return new MpaPeer(ch, readTimeout);
        } catch (IOException e) {
            ch.close();
            throw e;
        }
    }

    /** RFC 5044 7.1 request frame, every field chosen by the caller (so it can lie about any of them). */
    static byte[] requestFrame(byte[] key, int flags, int revision, int announcedLength, byte[] privateData) {
        ByteBuffer b = ByteBuffer.allocate(20 + privateData.length);
        b.put(key, 0, 16).put((byte) flags).put((byte) revision).putShort((short) announcedLength).put(privateData);
        return b.array();
    }

    /** RFC 6581 3: MPA revision 2 private data starts with IRD and ORD (14 bits each; P and RTR bits clear). */
    static byte[] withIrdOrd(int ird, int ord, byte[] applicationData) {
        ByteBuffer b = ByteBuffer.allocate(4 + applicationData.length);
        b.putShort((short) (ird & 0x3fff)).putShort((short) (ord & 0x3fff)).put(applicationData);
        return b.array();
    }

    /** What the responder answered (RFC 5044 7.1). */
    record Reply(int flags, int revision, byte[] privateData) {
        boolean rejected() {
            return (flags & FLAG_REJECT) != 0;
        }

        boolean crc() {
            return (flags & FLAG_CRC) != 0;
        }

        /** The application's private data: behind the IRD/ORD words when enhanced (RFC 6581 3). */
        byte[] applicationData() {
            boolean enhanced = revision == 2 && (flags & FLAG_ENHANCED) != 0 && privateData.length >= 4;
            return enhanced ? java.util.Arrays.copyOfRange(privateData, 4, privateData.length) : privateData;
        }

        int ird() {
            return ByteBuffer.wrap(privateData).getShort(0) & 0x3fff;
        }

        int ord() {
            return ByteBuffer.wrap(privateData).getShort(2) & 0x3fff;
        }
    }

    /**
     * A well-formed enhanced (revision 2, H set) request with our IRD/ORD and the application's private data; the
     * reply is read and CRC use taken from it. No peer-to-peer RTR is requested (RFC 6581 P bit clear), as Linux siw
     * does by default.
     */
    Reply negotiate(int ird, int ord, boolean wantCrc, byte[] applicationData) throws IOException {
        byte[] pd = withIrdOrd(ird, ord, applicationData);
        sendRaw(requestFrame(KEY_REQUEST, FLAG_ENHANCED | (wantCrc ? FLAG_CRC : 0), 2, pd.length, pd));
        return readReply();
    }

    Reply readReply() throws IOException {
        byte[] header = readFully(20);
        byte[] key = java.util.Arrays.copyOf(header, 16);
        if (!java.util.Arrays.equals(key, KEY_REPLY)) {
            throw new IOException("MPA reply with key " + new String(key, StandardCharsets.US_ASCII));
        }
        int length = ((header[18] & 0xff) << 8) | (header[19] & 0xff);
        if (length > MAX_PRIVATE_DATA) {
            throw new IOException("MPA reply announces " + length + " bytes of private data");
        }
        Reply r = new Reply(header[16] & 0xff, header[17] & 0xff, readFully(length));
        crc = r.crc();
        return r;
    }

    boolean crc() {
        return crc;
    }

    void readTimeout(Duration timeout) throws IOException {
        channel.socket().setSoTimeout((int) Math.max(1, timeout.toMillis()));
    }

    void sendRaw(byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            channel.write(b);
        }
    }

    /**
     * RFC 5044 4.1 FPDU: ULPDU length (16 bits), the ULPDU, pad to a multiple of 4 counting the length field, then
     * the CRC32C of all of that (RFC 5044 4.4: zero when CRC was not negotiated). The CRC goes out in the byte order
     * of iSCSI/SCTP CRC32C (RFC 3385), i.e. the little-endian bytes of the java.util.zip value.
     */
    static byte[] fpdu(byte[] ulpdu, boolean withCrc) {
        if (ulpdu.length > 0xffff) {
            throw new IllegalArgumentException("ULPDU of " + ulpdu.length + " bytes");
        }
        int pad = -(2 + ulpdu.length) & 3;
        ByteBuffer b = ByteBuffer.allocate(2 + ulpdu.length + pad + 4);
        b.putShort((short) ulpdu.length).put(ulpdu).position(2 + ulpdu.length + pad);
        int value = 0;
        if (withCrc) {
            CRC32C c = new CRC32C();
            c.update(b.array(), 0, 2 + ulpdu.length + pad);
            value = (int) c.getValue();
        }
        b.order(ByteOrder.LITTLE_ENDIAN).putInt(value);
        return b.array();
    }

    void sendUlpdu(byte[] ulpdu) throws IOException {
        sendRaw(fpdu(ulpdu, crc));
    }

    /** The next ULPDU, its pad and CRC checked and stripped. */
    byte[] readUlpdu() throws IOException {
        byte[] len = readFully(2);
        int length = ((len[0] & 0xff) << 8) | (len[1] & 0xff);
        int pad = -(2 + length) & 3;
        byte[] rest = readFully(length + pad + 4);
        if (crc) {
            CRC32C c = new CRC32C();
            c.update(len);
            c.update(rest, 0, length + pad);
            int wire = ByteBuffer.wrap(rest, length + pad, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            if (wire != (int) c.getValue()) {
                throw new IOException("FPDU with a bad CRC from the target");
            }
        }
        return java.util.Arrays.copyOf(rest, length);
    }

    byte[] readFully(int n) throws IOException {
        byte[] out = new byte[n];
        int got = 0;
        while (got < n) {
            int r = in.read(out, got, n - got);
            if (r < 0) {
                throw new EOFException("target closed the connection after " + got + " of " + n + " bytes");
            }
            got += r;
        }
        return out;
    }

    /**
     * Waits until the target closes the connection (EOF or reset), discarding what it sends, at most {@code max}.
     *
     * @return true if it closed, false if it was still open at the deadline
     */
    boolean closedByTargetWithin(Duration max) throws IOException {
        long deadline = System.nanoTime() + max.toNanos();
        byte[] sink = new byte[4096];
        while (System.nanoTime() - deadline < 0) {
            try {
                if (in.read(sink) < 0) {
                    return true;
                }
            } catch (SocketTimeoutException e) {
                // keep waiting until the deadline
            } catch (IOException reset) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
