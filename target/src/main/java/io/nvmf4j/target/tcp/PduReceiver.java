package io.nvmf4j.target.tcp;

import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.tcp.FatalErrorStatus;
import io.nvmf4j.protocol.tcp.IcReq;
import io.nvmf4j.protocol.tcp.NegotiatedParameters;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.protocol.tcp.PduType;
import io.nvmf4j.protocol.tcp.TermCause;
import io.nvmf4j.protocol.tcp.TermReq;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The receive side of one NVMe/TCP connection, nvmet-tcp's {@code nvmet_tcp_try_recv_pdu()},
 * {@code nvmet_tcp_try_recv_data()} and {@code nvmet_tcp_try_recv_ddgst()}: the common header, then the rest of the
 * PDU header with its digest and the padding up to PDO, then the PDU data straight into the buffer the queue names
 * for it, then the data digest. Every length the peer claims is checked ({@link PduHeader#check}, against what
 * the connection negotiated and the most this side takes of each PDU type) before a byte of it is handed on, so a
 * hostile PLEN can make it neither buffer more than its staging and 256-byte header buffers nor write outside the
 * named buffer.
 *
 * <p>The socket is read in chunks of up to {@link #STAGE_SIZE} bytes ({@link #WIDE_STAGE_SIZE} once an I/O queue
 * connected) into a staging buffer, from which the steps take their bytes (SPDK's receive pipe,
 * {@code nvme_tcp_read_data()} into {@code pdu_recv_buf}): at queue depth, one read brings many command capsules
 * where reading each header exactly took two system calls per command. PDU data, once the staged bytes are used,
 * is read straight into its own buffer (with the bytes after it into the staging buffer, in one scattering read):
 * only what came in with its header's read is copied out of the staging buffer. Reads
 * only what the socket has (non-blocking); no allocation after the I/O queue's Connect unless the connection ends.
 * Poll-group thread only.
 */
final class PduReceiver {

    /** The most PDUs taken in one call, so one busy connection cannot starve the others of its poll group. */
    private static final int PDUS_PER_CALL = 32;
    /** The header buffer: the largest PDO (255) fits, and so does a whole ICReq or TermReq. */
    private static final int HEADER_ROOM = 256;
    /** Bytes read ahead from the socket at most before Connect: the bound an unconnected peer holds. */
    static final int STAGE_SIZE = 8192;
    /** Bytes read ahead on a connected I/O queue: fifteen 4 KiB in-capsule writes, or hundreds of capsules. */
    static final int WIDE_STAGE_SIZE = 65536;

    private enum Step { COMMON_HEADER, HEADER, DATA, DATA_DIGEST, STOPPED }

    private final TcpQueue queue;
    private final MemorySegment header;
    private final ByteBuffer headerView;
    private final MemorySegment digest;
    private final ByteBuffer digestView;
    /** Read from the socket and not yet taken: position..limit. */
    private ByteBuffer stage;
    /** A scattering read's buffers: a PDU's data, then the staging buffer. */
    private final ByteBuffer[] scatter = new ByteBuffer[2];
    /**
     * The last read of the socket returned less than it asked for: the kernel had nothing more then, so a call
     * whose staged bytes are all taken returns instead of reading again for an EAGAIN (as softiwarp's Receiver).
     */
    private boolean drained;
    private Step step = Step.COMMON_HEADER;
    /** The PDU being received: its type, header end (with digest), and how much of the header buffer it fills. */
    private PduType type;
    private int headerLength;
    private int headerBytes;
    private long dataLength;
    private DataBlock data;
    private long dataFrom;
    private long dataTo;

    PduReceiver(TcpQueue queue) {
        this.queue = queue;
        this.headerView = DataBlock.direct(HEADER_ROOM, 8);
        this.header = MemorySegment.ofBuffer(headerView);
        this.digestView = DataBlock.direct(PduHeader.DIGEST_LENGTH, 4);
        this.digest = MemorySegment.ofBuffer(digestView);
        this.stage = DataBlock.direct(STAGE_SIZE, 8).limit(0);
        headerView.limit(PduHeader.LENGTH);
    }

    /** Where the data of the PDU whose header was just handed over goes: bytes {@code from}..{@code to} of {@code b}. */
    void expectData(DataBlock b, long from, long to) {
        data = b;
        dataFrom = from;
        dataTo = to;
    }

    /**
     * The queue connected as an I/O queue: the staging buffer grows to {@link #WIDE_STAGE_SIZE}, keeping what it
     * holds (at depth a small one brings only two 4 KiB writes per read). Once; not on the data path.
     */
    void widen() {
        if (stage.capacity() >= WIDE_STAGE_SIZE) {
            return;
        }
        ByteBuffer wide = DataBlock.direct(WIDE_STAGE_SIZE, 8).limit(0);
        wide.limit(stage.remaining()).put(stage).flip();
        stage = wide;
    }

    /** The connection ends: nothing more is read. */
    void stop() {
        step = Step.STOPPED;
    }

    /**
     * Takes what the socket has (and what an earlier call left staged), handing each complete header and each
     * complete PDU's data to the queue. Returns the bytes taken, or -1 when the peer closed the connection. Bytes
     * may stay staged when {@link #PDUS_PER_CALL} is reached: the call still returns more than zero, so the poll
     * group comes back before it blocks on the socket.
     */
    int receive(SocketChannel channel) throws IOException {
        int pdus = 0;
        int total = 0;
        drained = false;
        while (step != Step.STOPPED && pdus < PDUS_PER_CALL) {
            ByteBuffer b = switch (step) {
                case COMMON_HEADER, HEADER -> headerView;
                case DATA -> data.view;
                case DATA_DIGEST -> digestView;
                case STOPPED -> null;
            };
            if (b.hasRemaining()) {
                if (drained && !stage.hasRemaining()) {
                    // the last read took all the kernel had: one more would only say EAGAIN (a system call
                    // between every command's arrival and its execution); the next poll reads what came since
                    return total;
                }
                int n = fill(channel, b);
                if (n < 0) {
                    return -1;
                }
                total += n;
                if (b.hasRemaining()) {
                    return total;
                }
            }
            if (advance()) {
                pdus++;
            }
        }
        return total;
    }

    /**
     * Moves bytes into {@code b}: staged ones first; else, for PDU data, one scattering read straight into
     * {@code b} and what follows it into the staging buffer (SPDK's {@code nvme_tcp_read_data()} reads a PDU's
     * payload into its own iovecs, not through the receive pipe); else one read into the staging buffer and from
     * there. The bytes that went into {@code b}, 0 when the socket has none, or -1 at its end.
     */
    private int fill(SocketChannel channel, ByteBuffer b) throws IOException {
        if (!stage.hasRemaining()) {
            if (step == Step.DATA) {
                // straight into the data buffer even when the rest is smaller than a stage: staged, it would be
                // copied once more, and with what its header's read brought, nearly all of a 128 KiB H2CData
                // would pass through the staging buffer
                stage.clear();
                scatter[0] = b;
                scatter[1] = stage;
                long asked = (long) b.remaining() + stage.remaining();
                long n = channel.read(scatter);
                drained = n < asked;
                stage.flip();
                return n < 0 ? -1 : (int) n - stage.limit();
            }
            stage.clear();
            int asked = stage.remaining();
            int n = channel.read(stage);
            drained = n < asked;
            stage.flip();
            if (n <= 0) {
                return n;
            }
        }
        int n = Math.min(stage.remaining(), b.remaining());
        int end = stage.limit();
        stage.limit(stage.position() + n);
        b.put(stage);
        stage.limit(end);
        return n;
    }

    /** The current step's bytes are all there: the next step. True when a whole PDU was taken. */
    private boolean advance() {
        switch (step) {
            case COMMON_HEADER -> commonHeader();
            case HEADER -> {
                return wholeHeader();
            }
            case DATA -> {
                if (queue.negotiated().dataDigest()) {
                    digestView.clear();
                    step = Step.DATA_DIGEST;
                } else {
                    return pduDone();
                }
            }
            case DATA_DIGEST -> {
                int expected = queue.digest.compute(data.view, (int) dataFrom, (int) (dataTo - dataFrom));
                if ((int) Wire.u32(digest, 0) != expected) {
                    stop();
                    queue.dataDigestError(type);
                    return false;
                }
                return pduDone();
            }
            case STOPPED -> { }
        }
        return false;
    }

    private void commonHeader() {
        NegotiatedParameters n = queue.negotiated();
        int code = PduHeader.type(header);
        if (n == null) {
            // nvmet_tcp_handle_icreq(): the first PDU must be a whole 128-byte ICReq
            if (code == PduType.IC_REQ.code() && PduHeader.headerLength(header) == IcReq.LENGTH
                    && PduHeader.length(header) == IcReq.LENGTH) {
                type = PduType.IC_REQ;
                headerLength = IcReq.LENGTH;
                expectHeader(IcReq.LENGTH);
            } else {
                fatal(IcReq.check(header.asSlice(0, PduHeader.LENGTH)), PduHeader.LENGTH);
            }
            return;
        }
        type = PduType.of(code);
        TermCause bad = PduHeader.check(header, n, false, queue.maxPduLength(type));
        if (bad != null) {
            fatal(bad, PduHeader.LENGTH);
            return;
        }
        boolean term = type == PduType.H2C_TERM_REQ;
        headerLength = type.headerLength() + (term ? 0 : n.headerDigestLength());
        long plen = PduHeader.length(header);
        dataLength = term ? 0 : PduHeader.dataLength(header, n);
        if (term) {
            expectHeader((int) Math.min(plen, TermReq.HEADER_LENGTH + TermReq.MAX_ERROR_DATA));
        } else {
            // the padding up to PDO is read into the header buffer too (PDO is one byte: at most 255)
            expectHeader(dataLength > 0 ? PduHeader.dataOffset(header) : headerLength);
        }
    }

    private void expectHeader(int bytes) {
        headerBytes = bytes;
        headerView.limit(bytes);
        step = Step.HEADER;
    }

    /** The whole header (and padding) is there; true when it was a whole PDU (no data follows). */
    private boolean wholeHeader() {
        NegotiatedParameters n = queue.negotiated();
        if (n == null) {
            TermCause bad = IcReq.check(header.asSlice(0, IcReq.LENGTH));
            if (bad != null) {
                fatal(bad, IcReq.LENGTH);
                return false;
            }
            nextPdu();
            queue.icReq(header.asSlice(0, IcReq.LENGTH));
            return true;
        }
        if (type == PduType.H2C_TERM_REQ) {
            stop();
            queue.hostTerminated(header.asSlice(0, headerBytes));
            return false;
        }
        if (n.headerDigest()
                && (int) Wire.u32(header, type.headerLength()) != queue.digest.compute(headerView, 0, type.headerLength())) {
            // nvmet_tcp_verify_hdgst(); FEI is not used with FES 03h
            fatal(new TermCause(FatalErrorStatus.HEADER_DIGEST_ERROR, 0, type + " header digest mismatch"),
                    headerLength);
            return false;
        }
        data = null;
        queue.headerReceived(type, header, dataLength);
        if (step == Step.STOPPED) {
            return false;
        }
        if (dataLength > 0) {
            if (data == null || dataTo - dataFrom != dataLength) {
                throw new IllegalStateException(type + ": no buffer for " + dataLength + " bytes of data");
            }
            data.window(dataFrom, dataTo);
            step = Step.DATA;
            return false;
        }
        return pduDone();
    }

    private boolean pduDone() {
        PduType done = type;
        nextPdu();
        queue.dataReceived(done);
        return true;
    }

    private void nextPdu() {
        if (step == Step.STOPPED) {
            return;
        }
        headerView.clear().limit(PduHeader.LENGTH);
        step = Step.COMMON_HEADER;
    }

    /** A fatal transport error in the header just read: the queue answers with a C2HTermReq and closes. */
    private void fatal(TermCause cause, int received) {
        stop();
        queue.fatal(cause, header.asSlice(0, Math.min(received, TermReq.MAX_ERROR_DATA)));
    }

    /** The header bytes received so far, for a TermReq that quotes them. */
    MemorySegment header() {
        return header;
    }
}
