package io.nvmf4j.initiator.tcp;

import io.nvmf4j.initiator.NvmfConnectException;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.tcp.CapsulePdu;
import io.nvmf4j.protocol.tcp.DataPdu;
import io.nvmf4j.protocol.tcp.IcReq;
import io.nvmf4j.protocol.tcp.IcResp;
import io.nvmf4j.protocol.tcp.NegotiatedParameters;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.protocol.tcp.PduType;
import io.nvmf4j.protocol.tcp.TermCause;
import io.nvmf4j.protocol.tcp.TermReq;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32C;

/**
 * One NVMe/TCP connection of a host queue: the socket, connection initialization (Linux
 * {@code nvme_tcp_init_connection()}: ICReq with PFV 1.0, HPDA 0, MAXR2T 0 and the digests asked, the ICResp
 * checked) and the PDUs the host sends, built in one preallocated buffer: CapsuleCmd with any in-capsule data
 * ({@code nvme_tcp_try_send_cmd_pdu()}), H2CData answering an R2T ({@code nvme_tcp_try_send_data()}), H2CTermReq.
 * The socket is non-blocking once initialized; the completion thread reads it and blocks in {@link #await}.
 * Sends are serialized by the caller ({@link TcpHostQueue} holds its send lock).
 */
final class TcpConnection implements AutoCloseable {

    /** Bytes staged per socket write; larger data goes in several writes of one PDU. */
    private static final int SEND_BUFFER = 64 * 1024;

    private final SocketChannel channel;
    private final Selector selector;
    private final Arena arena;
    final NegotiatedParameters negotiated;
    private final MemorySegment out;
    private final ByteBuffer outBuffer;
    private final ByteBuffer outDigestView;
    private final CRC32C sendCrc = new CRC32C();

    private TcpConnection(SocketChannel channel, Selector selector, NegotiatedParameters negotiated, Arena arena) {
        this.arena = arena;
        this.channel = channel;
        this.selector = selector;
        this.negotiated = negotiated;
        this.out = arena.allocate(SEND_BUFFER + 256, 64);
        this.outBuffer = out.asByteBuffer();
        this.outDigestView = out.asByteBuffer();
    }

    /** TCP connect within {@code timeout}, then ICReq and a checked ICResp within what is left of it. */
    @SuppressWarnings("MustBeClosedChecker") // the arena outlives this call: the connection owns and closes it
    static TcpConnection open(String name, InetSocketAddress address, Duration timeout, boolean headerDigest,
            boolean dataDigest) throws NvmfConnectException {
        Arena arena = Arena.ofShared();
        long deadline = System.nanoTime() + timeout.toNanos();
        SocketChannel ch = null;
        Selector sel = null;
        try {
            ch = SocketChannel.open();
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.socket().connect(address, (int) Math.max(1, timeout.toMillis()));
            ch.configureBlocking(false);
            sel = Selector.open();
            ch.register(sel, SelectionKey.OP_READ);
            IcReq icReq = IcReq.of(headerDigest, dataDigest);
            MemorySegment pdu = arena.allocate(IcReq.LENGTH);
            icReq.encode(pdu);
            writeFully(ch, pdu.asByteBuffer());
            ByteBuffer in = pdu.asByteBuffer();
            in.clear().limit(PduHeader.LENGTH);
            readFully(name, ch, sel, in, deadline);
            if (PduHeader.type(pdu) == PduType.C2H_TERM_REQ.code()) {
                throw new NvmfConnectException(name + ": the controller refused the ICReq with a C2HTermReq");
            }
            if (PduHeader.length(pdu) != IcReq.LENGTH) {
                throw new NvmfConnectException(name + ": ICResp with PLEN " + PduHeader.length(pdu));
            }
            in.limit(IcReq.LENGTH);
            readFully(name, ch, sel, in, deadline);
            TermCause bad = IcResp.check(pdu, icReq);
            if (bad != null) {
                throw new NvmfConnectException(name + ": bad ICResp: " + bad.reason());
            }
            NegotiatedParameters n = IcResp.decode(pdu, icReq).negotiated(icReq);
            return new TcpConnection(ch, sel, n, arena);
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch, sel);
            arena.close();
            if (e instanceof NvmfConnectException nce) {
                throw nce;
            }
            throw new NvmfConnectException(name + ": cannot connect to " + address + ": " + e, e);
        }
    }

    private static void readFully(String name, SocketChannel ch, Selector sel, ByteBuffer in, long deadline)
            throws IOException {
        while (in.hasRemaining()) {
            if (ch.read(in) < 0) {
                throw new NvmfConnectException(name + ": the controller closed the connection during ICReq/ICResp");
            }
            long left = deadline - System.nanoTime();
            if (in.hasRemaining()) {
                if (left <= 0) {
                    throw new NvmfConnectException(name + ": no ICResp within the connect timeout");
                }
                sel.select(TcpConnection::ignore, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }
    }

    /** The selector's per-key action: the caller reads the socket itself after the wait. */
    private static void ignore(SelectionKey key) {
    }

    /** Reads what the socket holds into {@code in}: bytes read, 0 for none, -1 at the end of the stream. */
    int read(ByteBuffer in) throws IOException {
        return channel.read(in);
    }

    /** Blocks until the socket is readable or {@code millis} pass or {@link #wakeup()}. */
    void await(long millis) throws IOException {
        selector.select(TcpConnection::ignore, millis);
    }

    void wakeup() {
        selector.wakeup();
    }

    /**
     * A CapsuleCmd: the SQE, and {@code length} bytes of {@code data} at {@code offset} in the capsule (0: none),
     * with the digests negotiated.
     */
    void sendCapsule(MemorySegment sqe, MemorySegment data, long offset, int length) throws IOException {
        CapsulePdu.writeCommandHeader(out, negotiated, length);
        MemorySegment.copy(sqe, 0, out, CapsulePdu.OFFSET_ENTRY, SubmissionQueueEntry.SIZE);
        int end = PduType.CAPSULE_CMD.headerLength();
        sendBody(end, PduType.CAPSULE_CMD, data, offset, length);
    }

    /** One H2CData PDU answering R2T {@code ttag} of command {@code cid}. */
    void sendH2cData(int cid, int ttag, long dataOffset, int length, boolean last, MemorySegment data,
            long offset) throws IOException {
        DataPdu.writeData(out, PduType.H2C_DATA, negotiated, last ? PduHeader.FLAG_LAST_PDU : 0, cid, ttag,
                dataOffset, length);
        sendBody(PduType.H2C_DATA.headerLength(), PduType.H2C_DATA, data, offset, length);
    }

    /** The header is in the buffer up to {@code hlen}: its digest, the pad, the data and its digest, then out. */
    private void sendBody(int hlen, PduType type, MemorySegment data, long offset, int length) throws IOException {
        int pos = hlen;
        if (negotiated.headerDigest()) {
            Wire.u32(out, pos, Integer.toUnsignedLong(crc(0, hlen)));
            pos += PduHeader.DIGEST_LENGTH;
        }
        if (length == 0) {
            flush(pos);
            return;
        }
        int pdo = negotiated.dataOffset(type);
        for (int i = pos; i < pdo; i++) {
            out.set(ValueLayout.JAVA_BYTE, i, (byte) 0);
        }
        pos = pdo;
        sendCrc.reset();
        long done = 0;
        while (done < length) {
            int chunk = (int) Math.min(length - done, SEND_BUFFER - pos);
            MemorySegment.copy(data, offset + done, out, pos, chunk);
            if (negotiated.dataDigest()) {
                outDigestView.limit(pos + chunk).position(pos);
                sendCrc.update(outDigestView);
            }
            pos += chunk;
            done += chunk;
            if (pos == SEND_BUFFER) {
                flush(pos);
                pos = 0;
            }
        }
        if (negotiated.dataDigest()) {
            Wire.u32(out, pos, sendCrc.getValue());
            pos += PduHeader.DIGEST_LENGTH;
        }
        flush(pos);
    }

    private int crc(int from, int to) {
        sendCrc.reset();
        outDigestView.limit(to).position(from);
        sendCrc.update(outDigestView);
        return (int) sendCrc.getValue();
    }

    /** An H2CTermReq (Linux {@code nvme_tcp_error_recovery()} ends the connection after it). */
    void sendTermReq(TermCause cause, MemorySegment badPdu) throws IOException {
        TermReq t = TermReq.of(true, cause, badPdu);
        t.encode(out);
        flush(t.length());
    }

    private void flush(int length) throws IOException {
        outBuffer.clear().limit(length);
        writeFully(channel, outBuffer);
    }

    /** Writes all of {@code b}: a full socket waits briefly and tries again (the peer is reading). */
    private static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        int idle = 0;
        while (b.hasRemaining()) {
            if (ch.write(b) == 0) {
                if (++idle < 100) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(20_000);
                }
            } else {
                idle = 0;
            }
        }
    }

    /** The connection's memory: freed by {@link #close()}. */
    Arena arena() {
        return arena;
    }

    /** Closes the socket: a blocked send fails, the poller's wait ends. The buffers stay until {@link #close()}. */
    void shutdown() {
        closeQuietly(channel, selector);
    }

    /** Closes the socket and frees the buffers (after the poller has ended, under the send lock). */
    @Override
    public void close() {
        closeQuietly(channel, selector);
        arena.close();
    }

    private static void closeQuietly(SocketChannel ch, Selector sel) {
        try {
            if (sel != null) {
                sel.close();
            }
        } catch (IOException ignored) {
            // closing: nothing to do
        }
        try {
            if (ch != null) {
                ch.close();
            }
        } catch (IOException ignored) {
            // closing: nothing to do
        }
    }
}
