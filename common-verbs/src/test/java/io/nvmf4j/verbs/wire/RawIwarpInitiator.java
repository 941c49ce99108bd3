package io.nvmf4j.verbs.wire;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;

/**
 * A plain TCP socket that plays the iWARP initiator by hand: it writes MPA frames and FPDUs built byte by byte
 * and reads what the provider under test sends back. Every read has a deadline.
 */
final class RawIwarpInitiator implements AutoCloseable {

    /** One FPDU as received: its ULPDU, and whether its CRC trailer matched (always true without CRC). */
    record ReceivedFpdu(byte[] ulpdu, boolean crcMatches) {
    }

    /** What happened to the connection while waiting for it to close. */
    record CloseOutcome(boolean closed, byte[] bytesBeforeClose) {
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private boolean crc;
    private int nextSendMsn = 1;
    private int nextReadRequestMsn = 1;

    private RawIwarpInitiator(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    static RawIwarpInitiator connect(InetSocketAddress listener, Duration timeout) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(listener, (int) timeout.toMillis());
            return new RawIwarpInitiator(socket);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** Whether FPDUs carry a real CRC (set from the MPA reply). */
    void crc(boolean enabled) {
        this.crc = enabled;
    }

    boolean crc() {
        return crc;
    }

    /** The Send queue's next MSN (RFC 5041, 5.1: each untagged queue starts at 1), then counts it as used. */
    int takeSendMsn() {
        return nextSendMsn++;
    }

    int takeReadRequestMsn() {
        return nextReadRequestMsn++;
    }

    void write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Frames {@code ulpdu} into an FPDU (with the negotiated CRC) and sends it. */
    void sendFpdu(byte[] ulpdu) throws IOException {
        write(Fpdu.frame(ulpdu, crc));
    }

    /** Reads one MPA Request/Reply frame (header and private data). */
    MpaConnectionFrame readConnectionFrame(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        byte[] header = readFully(MpaConnectionFrame.HEADER_LENGTH, deadline);
        int pdLength = MpaConnectionFrame.declaredPdLength(header);
        if (pdLength > MpaConnectionFrame.MAX_PRIVATE_DATA) {
            throw new IOException("MPA frame from the provider declares " + pdLength + " bytes of private data");
        }
        return MpaConnectionFrame.decode(header, readFully(pdLength, deadline));
    }

    /** Reads one FPDU and checks its CRC when CRC is in use. */
    ReceivedFpdu readFpdu(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        byte[] lengthField = readFully(2, deadline);
        int length = ((lengthField[0] & 0xff) << 8) | (lengthField[1] & 0xff);
        byte[] ulpdu = readFully(length, deadline);
        byte[] pad = readFully(Fpdu.padLength(length), deadline);
        byte[] trailer = readFully(4, deadline);
        boolean matches = true;
        if (crc) {
            byte[] covered = new byte[2 + length + pad.length];
            System.arraycopy(lengthField, 0, covered, 0, 2);
            System.arraycopy(ulpdu, 0, covered, 2, length);
            matches = Arrays.equals(trailer, MpaCrc.trailer(covered, 0, covered.length));
        }
        return new ReceivedFpdu(ulpdu, matches);
    }

    /**
     * Reads FPDUs until a Terminate arrives (other FPDUs, e.g. a Read Response, are skipped).
     *
     * @throws EOFException when the provider closes the stream without sending a Terminate
     */
    TerminateMessage awaitTerminate(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            ReceivedFpdu fpdu = readFpdu(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            if (TerminateMessage.isTerminate(fpdu.ulpdu())) {
                if (!fpdu.crcMatches()) {
                    throw new IOException("Terminate FPDU from the provider has a wrong CRC");
                }
                return TerminateMessage.parse(fpdu.ulpdu());
            }
        }
    }

    /** Waits until the provider closes (EOF or reset), collecting any bytes it sends first. */
    CloseOutcome awaitClose(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        while (true) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return new CloseOutcome(false, seen.toByteArray());
            }
            socket.setSoTimeout((int) Math.max(1, remaining / 1_000_000));
            try {
                int n = in.read(buffer);
                if (n < 0) {
                    return new CloseOutcome(true, seen.toByteArray());
                }
                seen.write(buffer, 0, n);
            } catch (SocketTimeoutException e) {
                return new CloseOutcome(false, seen.toByteArray());
            } catch (SocketException e) {
                // a reset is a close too
                return new CloseOutcome(true, seen.toByteArray());
            }
        }
    }

    private byte[] readFully(int length, long deadline) throws IOException {
        byte[] result = new byte[length];
        int done = 0;
        while (done < length) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                throw new SocketTimeoutException("provider sent " + done + " of " + length + " expected bytes in time");
            }
            socket.setSoTimeout((int) Math.max(1, remaining / 1_000_000));
            int n = in.read(result, done, length - done);
            if (n < 0) {
                throw new EOFException("provider closed the stream after " + done + " of " + length + " bytes");
            }
            done += n;
        }
        return result;
    }

    /** Kills the connection with a TCP reset (SO_LINGER 0), as a crashed peer or a dropped link would. */
    void reset() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
