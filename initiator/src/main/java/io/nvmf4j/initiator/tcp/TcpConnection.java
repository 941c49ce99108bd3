package io.nvmf4j.initiator.tcp;

import io.nvmf4j.initiator.NvmfConnectException;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.tcp.CapsulePdu;
import io.nvmf4j.protocol.tcp.DataPdu;
import io.nvmf4j.protocol.tcp.IcReq;
import io.nvmf4j.protocol.tcp.IcResp;
import io.nvmf4j.protocol.tcp.NegotiatedParameters;
import io.nvmf4j.protocol.tcp.PduDigest;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.protocol.tcp.PduType;
import io.nvmf4j.protocol.tcp.TermCause;
import io.nvmf4j.protocol.tcp.TermReq;
import java.io.IOException;
import java.io.Serial;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One NVMe/TCP connection of a host queue: the socket, connection initialization (Linux
 * {@code nvme_tcp_init_connection()}: ICReq with PFV 1.0, HPDA 0, MAXR2T 0 and the digests asked, the ICResp
 * checked) and the PDUs the host sends, built in one preallocated buffer: CapsuleCmd with any in-capsule data
 * ({@code nvme_tcp_try_send_cmd_pdu()}), H2CData answering an R2T ({@code nvme_tcp_try_send_data()}), H2CTermReq.
 * The socket is non-blocking once initialized; the completion thread reads it and blocks in {@link #await}.
 * Sends are serialized by the caller ({@link TcpHostQueue} holds its send lock). A send never waits for ever on a
 * full socket: when the controller takes no byte for the send timeout (the command timeout) it fails, and the queue
 * fails as on any socket error (Linux {@code nvme_tcp_io_work()} waits for write space, and
 * {@code nvme_tcp_timeout()} starts error recovery when the command is not done in time).
 */
final class TcpConnection implements AutoCloseable {

    /** Bytes staged per socket write; larger data goes in several writes of one PDU. */
    private static final int SEND_BUFFER = 64 * 1024;
    /** Bytes of PDUs held back while the poller hands received ones on ({@link #cork}). */
    private static final int BATCH = 64 * 1024;
    /** Writes that took nothing retried at once before the sender blocks for write space. */
    private static final int SEND_SPINS = 100;
    /** H2CData PDUs held back while corked; one more is written with what waits before it. */
    private static final int MAX_DEFERRED = 16;
    /**
     * Room for one held-back H2CData's header, its digest and the pad up to PDO: at most 128 bytes (CPDA 31),
     * rounded up.
     */
    private static final int DEFERRED_HEADER = 256;

    private final String name;
    private final SocketChannel channel;
    private final Selector selector;
    /** OP_WRITE only, for a sender waiting on a full socket (the poller's {@link #selector} is for reads). */
    private final Selector writeSelector;
    private final long sendTimeoutNanos;
    private final Arena arena;
    final NegotiatedParameters negotiated;
    private final MemorySegment out;
    private final ByteBuffer outBuffer;
    /** CRC32C of what is sent, under the send lock (the target's digest). */
    private final PduDigest digest = new PduDigest();
    /** Why the last send gave up (the socket stayed full): later sends fail at once. Under the send lock. */
    private String stalled;
    /** PDUs waiting for {@link #uncork}, in order; under the send lock. */
    private final ByteBuffer batch;
    private boolean corked;
    /**
     * H2CData PDUs from the caller's memory waiting for the next write (all of a receive pass's while corked), in
     * order (SPDK's nvme_tcp queues a qpair's PDUs and writes all that waits with one sendmsg per poll): each one's
     * header slot, its data (the slot's view, its range set) and its data digest slot. Under the send lock.
     */
    private final ByteBuffer[] deferredHeader = new ByteBuffer[MAX_DEFERRED];
    private final MemorySegment[] deferredHeaderOut = new MemorySegment[MAX_DEFERRED];
    private final ByteBuffer[] deferredData = new ByteBuffer[MAX_DEFERRED];
    private final ByteBuffer[] deferredDigest = new ByteBuffer[MAX_DEFERRED];
    private final MemorySegment[] deferredDigestOut = new MemorySegment[MAX_DEFERRED];
    private int deferred;
    /**
     * The buffers of one write: the send buffer alone, or what {@link #cork} gathered (the batch, then each held-back
     * H2CData's header, data and data digest). Under the send lock.
     */
    private final ByteBuffer[] gather = new ByteBuffer[1 + 3 * MAX_DEFERRED];

    private TcpConnection(String name, SocketChannel channel, Selector selector, Selector writeSelector,
            long sendTimeoutNanos, NegotiatedParameters negotiated, Arena arena) {
        this.name = name;
        this.arena = arena;
        this.channel = channel;
        this.selector = selector;
        this.writeSelector = writeSelector;
        this.sendTimeoutNanos = sendTimeoutNanos;
        this.negotiated = negotiated;
        // direct buffers of their own, not views of the arena's memory: a gathering write of buffers that view an
        // arena acquires its session per write, which allocates
        this.outBuffer = ByteBuffer.allocateDirect(SEND_BUFFER + 256);
        this.out = MemorySegment.ofBuffer(outBuffer);
        this.batch = ByteBuffer.allocateDirect(BATCH);
        // slices made once: a held-back PDU costs no allocation
        ByteBuffer headers = ByteBuffer.allocateDirect(MAX_DEFERRED * DEFERRED_HEADER);
        ByteBuffer digests = ByteBuffer.allocateDirect(MAX_DEFERRED * PduHeader.DIGEST_LENGTH);
        for (int i = 0; i < MAX_DEFERRED; i++) {
            deferredHeader[i] = headers.slice(i * DEFERRED_HEADER, DEFERRED_HEADER);
            deferredHeaderOut[i] = MemorySegment.ofBuffer(deferredHeader[i]);
            deferredDigest[i] = digests.slice(i * PduHeader.DIGEST_LENGTH, PduHeader.DIGEST_LENGTH);
            deferredDigestOut[i] = MemorySegment.ofBuffer(deferredDigest[i]);
        }
    }

    /**
     * From now until {@link #uncork}, whole PDUs that fit are gathered instead of written one system call each: the
     * commands that completions submit while the poller walks a receive buffer leave in one write (SPDK's
     * nvme_tcp qpair queues its PDUs on the socket and flushes them once per poll). Under the send lock.
     */
    void cork() {
        corked = true;
    }

    /** Writes what {@link #cork} gathered. Under the send lock. */
    void uncork() throws IOException {
        corked = false;
        flushBatch();
    }

    /** The connection is failing: what {@link #cork} gathered is dropped, and later PDUs (a TermReq) go out. */
    void discardCorked() {
        corked = false;
        batch.clear();
        dropDeferred();
    }

    /** Writes what {@link #cork} gathered, in one gathering write when the socket takes it. */
    private void flushBatch() throws IOException {
        int buffers = gatherCorked();
        if (buffers == 0) {
            return;
        }
        try {
            writeFully(name, channel, writeSelector, gather, buffers, sendTimeoutNanos);
        } catch (SendTimeoutException e) {
            stalled = e.getMessage();
            throw e;
        } finally {
            batch.clear();
            dropDeferred();
        }
    }

    /**
     * Puts what {@link #cork} gathered at the start of {@link #gather}: the batch's PDUs, then the held-back
     * H2CData, each whole (PDUs of different commands may leave in any order; one H2CData's pieces stay together).
     * Returns the number of buffers.
     */
    private int gatherCorked() {
        int buffers = 0;
        if (batch.position() > 0) {
            batch.flip();
            gather[buffers++] = batch;
        }
        for (int i = 0; i < deferred; i++) {
            gather[buffers++] = deferredHeader[i];
            gather[buffers++] = deferredData[i];
            if (negotiated.dataDigest()) {
                gather[buffers++] = deferredDigest[i];
            }
        }
        return buffers;
    }

    private void dropDeferred() {
        for (int i = 0; i < deferred; i++) {
            deferredData[i].clear();
            deferredData[i] = null;
        }
        deferred = 0;
    }

    /**
     * TCP connect within {@code timeout}, then ICReq and a checked ICResp within what is left of it; later sends give
     * up when the controller takes no byte for {@code sendTimeout}.
     */
    @SuppressWarnings("MustBeClosedChecker") // the arena outlives this call: the connection owns and closes it
    static TcpConnection open(String name, InetSocketAddress address, Duration timeout, Duration sendTimeout,
            boolean headerDigest, boolean dataDigest) throws NvmfConnectException {
        Arena arena = Arena.ofShared();
        long deadline = System.nanoTime() + timeout.toNanos();
        SocketChannel ch = null;
        Selector sel = null;
        Selector wsel = null;
        try {
            ch = SocketChannel.open();
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.socket().connect(address, (int) Math.max(1, timeout.toMillis()));
            ch.configureBlocking(false);
            sel = Selector.open();
            ch.register(sel, SelectionKey.OP_READ);
            wsel = Selector.open();
            ch.register(wsel, SelectionKey.OP_WRITE);
            IcReq icReq = IcReq.of(headerDigest, dataDigest);
            MemorySegment pdu = arena.allocate(IcReq.LENGTH);
            icReq.encode(pdu);
            // the ICReq is sent before the options are in force: the connect timeout bounds it
            writeFully(name, ch, wsel, new ByteBuffer[] {pdu.asByteBuffer()}, 1, timeout.toNanos());
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
            return new TcpConnection(name, ch, sel, wsel, sendTimeout.toNanos(), n, arena);
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch, sel, wsel);
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

    /** A scattering read: bytes read, 0 for none, -1 at the end of the stream. */
    long read(ByteBuffer[] into) throws IOException {
        return channel.read(into);
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

    /**
     * One H2CData PDU answering R2T {@code ttag} of command {@code cid}. With {@code view} (the data's memory as a
     * direct buffer, {@link TcpSlot#dataView}) the data leaves from there (Linux nvme_tcp_try_send_data() sends the
     * request's pages, SPDK's nvme_tcp queues the PDU's iovecs: neither copies the data), its header and digest
     * in a slot of their own: while corked the PDU waits for {@link #uncork} and leaves in its one gathering write
     * with the other PDUs of the receive pass, else at once. Without a view the data is copied through the send
     * buffer.
     */
    void sendH2cData(int cid, int ttag, long dataOffset, int length, boolean last, MemorySegment data,
            long offset, ByteBuffer view) throws IOException {
        if (view == null) {
            DataPdu.writeData(out, PduType.H2C_DATA, negotiated, last ? PduHeader.FLAG_LAST_PDU : 0, cid, ttag,
                    dataOffset, length);
            sendBody(PduType.H2C_DATA.headerLength(), PduType.H2C_DATA, data, offset, length);
            return;
        }
        if (stalled != null) {
            throw new IOException(stalled);
        }
        if (deferred == MAX_DEFERRED || isDeferred(view)) {
            flushBatch(); // a view holds one range at a time: the earlier PDU from it leaves first
        }
        ByteBuffer header = deferredHeader[deferred];
        MemorySegment headerOut = deferredHeaderOut[deferred];
        DataPdu.writeData(headerOut, PduType.H2C_DATA, negotiated, last ? PduHeader.FLAG_LAST_PDU : 0, cid, ttag,
                dataOffset, length);
        int hlen = PduType.H2C_DATA.headerLength();
        int pos = hlen;
        if (negotiated.headerDigest()) {
            Wire.u32(headerOut, pos, Integer.toUnsignedLong(digest.compute(header, 0, hlen)));
            pos += PduHeader.DIGEST_LENGTH;
        }
        int pdo = negotiated.dataOffset(PduType.H2C_DATA);
        for (int i = pos; i < pdo; i++) {
            headerOut.set(ValueLayout.JAVA_BYTE, i, (byte) 0);
        }
        header.clear().limit(pdo);
        int from = Math.toIntExact(offset);
        view.clear().position(from).limit(from + length);
        if (negotiated.dataDigest()) {
            Wire.u32(deferredDigestOut[deferred], 0, Integer.toUnsignedLong(digest.compute(view, from, length)));
            deferredDigest[deferred].clear();
        }
        deferredData[deferred++] = view;
        if (!corked) {
            flushBatch(); // outside a receive pass (the parser's fuzz feeder): out at once
        }
    }

    private boolean isDeferred(ByteBuffer view) {
        for (int i = 0; i < deferred; i++) {
            if (deferredData[i] == view) {
                return true;
            }
        }
        return false;
    }

    /** The header is in the buffer up to {@code hlen}: its digest, the pad, the data and its digest, then out. */
    private void sendBody(int hlen, PduType type, MemorySegment data, long offset, int length) throws IOException {
        int pos = hlen;
        if (negotiated.headerDigest()) {
            Wire.u32(out, pos, Integer.toUnsignedLong(digest.compute(outBuffer, 0, hlen)));
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
        int dataDigest = 0; // the digest of no bytes
        long done = 0;
        while (done < length) {
            int chunk = (int) Math.min(length - done, SEND_BUFFER - pos);
            MemorySegment.copy(data, offset + done, out, pos, chunk);
            if (negotiated.dataDigest()) {
                // data larger than the buffer leaves in pieces: each digested in the buffer, the digests joined
                dataDigest = DigestCombine.combine(dataDigest, digest.compute(outBuffer, pos, chunk), chunk);
            }
            pos += chunk;
            done += chunk;
            if (pos == SEND_BUFFER) {
                flush(pos);
                pos = 0;
            }
        }
        if (negotiated.dataDigest()) {
            Wire.u32(out, pos, Integer.toUnsignedLong(dataDigest));
            pos += PduHeader.DIGEST_LENGTH;
        }
        flush(pos);
    }

    /** An H2CTermReq (Linux {@code nvme_tcp_error_recovery()} ends the connection after it). */
    void sendTermReq(TermCause cause, MemorySegment badPdu) throws IOException {
        TermReq t = TermReq.of(true, cause, badPdu);
        t.encode(out);
        flush(t.length());
    }

    private void flush(int length) throws IOException {
        if (stalled != null) {
            throw new IOException(stalled);
        }
        outBuffer.clear().limit(length);
        if (corked && length <= batch.remaining()) {
            batch.put(outBuffer);
            return;
        }
        flushBatch(); // what was gathered goes first: the PDUs keep their order
        try {
            gather[0] = outBuffer;
            writeFully(name, channel, writeSelector, gather, 1, sendTimeoutNanos);
        } catch (SendTimeoutException e) {
            stalled = e.getMessage(); // the PDU is cut short: nothing more may follow it on this connection
            throw e;
        }
    }

    /**
     * Writes all of the first {@code count} buffers of {@code b}, in one gathering write when the socket takes it.
     * A full socket is tried again a few times, then the sender blocks in the write selector for write space; when
     * no byte is taken for {@code timeoutNanos} it gives up. Closing the connection ({@link #shutdown()}) closes that
     * selector, which ends the wait.
     */
    private static void writeFully(String name, SocketChannel ch, Selector writeSelector, ByteBuffer[] b, int count,
            long timeoutNanos) throws IOException {
        int idle = 0;
        long idleSince = 0;
        while (b[count - 1].hasRemaining()) {
            if (ch.write(b, 0, count) > 0) {
                idle = 0;
            } else if (++idle == 1) {
                idleSince = System.nanoTime();
            } else if (idle < SEND_SPINS) {
                Thread.onSpinWait();
            } else {
                long left = timeoutNanos - (System.nanoTime() - idleSince);
                if (left <= 0) {
                    throw new SendTimeoutException(name + ": the controller took no data for "
                            + duration(timeoutNanos));
                }
                if (!writeSelector.isOpen()) {
                    throw new ClosedChannelException();
                }
                // rounded up: a wait of 0 ms would block without a bound
                writeSelector.select(TcpConnection::ignore, Math.max(1, (left + 999_999) / 1_000_000));
            }
        }
    }

    /** A bound for a message: whole seconds as "30 s", else milliseconds. */
    private static String duration(long nanos) {
        long ms = TimeUnit.NANOSECONDS.toMillis(nanos);
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    /** A send gave up: the controller took nothing for the send timeout. */
    private static final class SendTimeoutException extends IOException {
        @Serial
        private static final long serialVersionUID = 1L;

        SendTimeoutException(String message) {
            super(message);
        }
    }

    /** The connection's memory: freed by {@link #close()}. */
    Arena arena() {
        return arena;
    }

    /** Closes the socket: a blocked send fails, the poller's wait ends. The buffers stay until {@link #close()}. */
    void shutdown() {
        closeQuietly(channel, selector, writeSelector);
    }

    /** Closes the socket and frees the buffers (after the poller has ended, under the send lock). */
    @Override
    public void close() {
        closeQuietly(channel, selector, writeSelector);
        arena.close();
    }

    /** Closing a selector wakes a thread blocked in it. */
    private static void closeQuietly(SocketChannel ch, Selector sel, Selector writeSel) {
        for (Selector s : new Selector[] {sel, writeSel}) {
            try {
                if (s != null) {
                    s.close();
                }
            } catch (IOException ignored) {
                // closing: nothing to do
            }
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
