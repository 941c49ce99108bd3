package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePairState;
import io.nvmf4j.verbs.softiwarp.ddp.DdpHeader;
import io.nvmf4j.verbs.softiwarp.ddp.DdpTaggedHeader;
import io.nvmf4j.verbs.softiwarp.mpa.Crc32c;
import io.nvmf4j.verbs.softiwarp.rdmap.RdmapOpcode;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateCodes;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateMessage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The receive side of a queue pair, FPDU framing (siw_tcp_rx_data(), siw_get_hdr(), siw_get_trailer() of Linux
 * siw_qp_rx.c): a state machine over the non-blocking socket that reads each FPDU's header, payload and trailer,
 * checks versions, lengths and the MPA CRC, and hands the RDMAP work - per-opcode checks, placement into registered
 * memory, completion - to {@link RdmapReceive}. Payload goes to the registered memory it is for only after every
 * check passed - nothing is ever written outside a region. Runs on the progress engine thread (or an inline poller,
 * one at a time).
 *
 * <p>Syscalls: bytes are taken from a per-QP direct staging buffer that one {@code read} fills with whatever the
 * socket has, so a small FPDU (header, payload, trailer) - or several coalesced ones - costs one read instead of
 * 3-4, and its payload is copied from the staging buffer into the region. When the staging buffer is empty and
 * at least {@link #DIRECT_READ_MIN} bytes of payload are still due, the payload is read from the socket straight
 * into the registered memory (bulk data: no copy); while large FPDUs follow each other, the reads between two
 * payloads take only the trailer and the next header, so every payload after the first is read in place (two
 * reads per FPDU, no copy). Single-buffer reads only.
 */
final class Receiver {
    private static final int GET_HEADER = 0;
    private static final int GET_HEADER_REST = 1;
    private static final int GET_PAYLOAD = 2;
    private static final int GET_TRAILER = 3;
    /** siw MIN_DDP_HDR: every FPDU is at least a tagged header long. */
    private static final int MIN_HEADER = DdpTaggedHeader.LENGTH;
    private static final int MAX_FPDUS_PER_POLL = 32;
    /** Payload still due from which an empty staging buffer is bypassed (read straight into the region). */
    static final int DIRECT_READ_MIN = 8192;
    private static final int STAGING_CAPACITY = 32768;
    /** The longest trailer: pad and CRC. */
    private static final int TRAILER_MAX = 3 + DdpHeader.MPA_CRC_LENGTH;

    private final SoftiwarpQueuePair qp;
    final ByteBuffer header = ByteBuffer.allocateDirect(128);
    private final ByteBuffer trailer = ByteBuffer.allocateDirect(8);
    private final ByteBuffer discard = ByteBuffer.allocateDirect(512);
    /** Bytes read from the socket not consumed yet, in [position, limit). */
    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING_CAPACITY).limit(0);
    private final Crc32c crc = new Crc32c();
    /** The RDMAP message layer: per-opcode checks, placement, completion. */
    private final RdmapReceive messages;

    /**
     * Set while large FPDUs follow each other (the last payload went straight into registered memory): the next
     * read into the staging buffer then takes only what is due before the next payload - the trailer and the
     * next header - so that payload too is read in place instead of through the staging buffer.
     */
    private boolean bulk;
    /**
     * The last read of the socket returned less than it asked for: the kernel had no more at that moment, so a
     * poll whose staged bytes are all consumed ends there, without one more read that would only say EAGAIN. That
     * read sat between every command's arrival and its execution, and between every response's arrival and its
     * completion: a system call costs 1.2 us on the virtual machines of bench/README ("Two busy cores and the
     * virtual disk"), and QD1 over RAM went from 20-23 to 13-18 us p50 without it. Bytes that arrive after the
     * short read wait for the next poll, as they would had they arrived after the EAGAIN.
     */
    private boolean drained;
    /** Reads in a poll that returned nothing after the same poll had read bytes (what {@link #drained} saves). */
    long emptyReadsAfterData;
    private int state = GET_HEADER;
    RdmapOpcode opcode;
    int headerLength;
    int payloadLength;
    int payloadReceived;
    private int pad;

    Receiver(SoftiwarpQueuePair qp) {
        this.qp = qp;
        this.messages = new RdmapReceive(this, qp);
        header.limit(MIN_HEADER);
    }

    /** Reads and processes what the socket has; true if any byte was consumed. */
    boolean poll() {
        SocketChannel ch = qp.channel;
        if (ch == null || qp.state() != QueuePairState.RTS) {
            return false;
        }
        boolean progress = false;
        int fpdus = 0;
        drained = false;
        try {
            while (qp.state() == QueuePairState.RTS && fpdus < MAX_FPDUS_PER_POLL) {
                if (drained && !staging.hasRemaining()) {
                    break;
                }
                int n = step(ch);
                if (n < 0) {
                    qp.enterError(DisconnectEvent.Cause.PEER_DISCONNECT, "peer closed the connection", null);
                    return true;
                }
                if (n == 0) {
                    if (progress) {
                        emptyReadsAfterData++;
                    }
                    break;
                }
                progress = true;
                if (state == GET_HEADER && header.position() == 0) {
                    fpdus++;
                }
            }
        } catch (IOException e) {
            qp.enterError(DisconnectEvent.Cause.TRANSPORT_ERROR, "receive failed: " + e.getMessage(), null);
            return true;
        }
        return progress;
    }

    /**
     * Once the queue pair has ended: reads what the peer still sends, at most about {@code budget} bytes, into the
     * staging buffer (no longer needed: nothing is framed any more) and throws it away. Returns the bytes read,
     * or -1 at the end of the stream.
     */
    long discard(SocketChannel ch, long budget) throws IOException {
        long total = 0;
        try {
            while (total < budget) {
                staging.clear();
                int n = ch.read(staging);
                if (n < 0) {
                    return -1;
                }
                if (n == 0) {
                    break;
                }
                total += n;
            }
        } finally {
            staging.clear().limit(0);
        }
        return total;
    }

    /** One read; returns bytes consumed, 0 if the socket had nothing, -1 at end of stream. */
    private int step(SocketChannel ch) throws IOException {
        switch (state) {
            case GET_HEADER, GET_HEADER_REST -> {
                int n = fill(ch, header, false);
                if (n <= 0) {
                    return n;
                }
                if (header.hasRemaining()) {
                    return n;
                }
                if (state == GET_HEADER) {
                    if (!headerStart()) {
                        return n;
                    }
                    if (headerLength > MIN_HEADER) {
                        state = GET_HEADER_REST;
                        header.limit(headerLength);
                        return n;
                    }
                }
                headerComplete();
                return n;
            }
            case GET_PAYLOAD -> {
                return readPayload(ch);
            }
            case GET_TRAILER -> {
                int n = fill(ch, trailer, false);
                if (n <= 0) {
                    return n;
                }
                if (!trailer.hasRemaining()) {
                    trailerComplete();
                }
                return n;
            }
            default -> throw new IllegalStateException("receiver state " + state);
        }
    }

    /**
     * Moves the next bytes of the stream into {@code dst}: first what the staging buffer holds; else, for a
     * payload with at least DIRECT_READ_MIN bytes due, one read straight into {@code dst}; else one read of what
     * the socket has into the staging buffer. Returns the bytes moved, 0 if the socket had none, -1 at its end.
     */
    private int fill(SocketChannel ch, ByteBuffer dst, boolean payload) throws IOException {
        if (!staging.hasRemaining()) {
            if (payload && dst.remaining() >= DIRECT_READ_MIN) {
                bulk = true;
                int asked = dst.remaining();
                int n = ch.read(dst);
                drained = n < asked;
                return n;
            }
            staging.clear();
            if (bulk) {
                // up to the next FPDU's first header bytes: its payload may go in place too
                staging.limit(dst.remaining() + switch (state) {
                    case GET_PAYLOAD -> payload ? TRAILER_MAX + MIN_HEADER : 0;
                    case GET_TRAILER -> MIN_HEADER;
                    default -> 0;
                });
            }
            int asked = staging.remaining();
            int n = ch.read(staging);
            drained = n < asked;
            staging.flip();
            if (n <= 0) {
                return n;
            }
        }
        int n = Math.min(staging.remaining(), dst.remaining());
        dst.put(dst.position(), staging, staging.position(), n);
        dst.position(dst.position() + n);
        staging.position(staging.position() + n);
        return n;
    }

    /** siw_get_hdr(): versions and opcode of a new FPDU (first 16 bytes in). */
    private boolean headerStart() {
        boolean tagged = DdpHeader.tagged(header);
        if (DdpHeader.ddpVersion(header) != DdpHeader.DDP_VERSION) {
            return fail(TerminateCodes.LAYER_DDP,
                    tagged ? TerminateCodes.DDP_ETYPE_TAGGED_BUF : TerminateCodes.DDP_ETYPE_UNTAGGED_BUF,
                    tagged ? TerminateCodes.DDP_ECODE_T_VERSION : TerminateCodes.DDP_ECODE_UT_VERSION);
        }
        if (DdpHeader.rdmapVersion(header) != DdpHeader.RDMAP_VERSION) {
            return fail(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION,
                    TerminateCodes.RDMAP_ECODE_VERSION);
        }
        opcode = RdmapOpcode.of(DdpHeader.opcode(header));
        if (opcode == null || opcode.tagged() != tagged) {
            return fail(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION,
                    TerminateCodes.RDMAP_ECODE_OPCODE);
        }
        headerLength = opcode.headerLength();
        int mpaLength = DdpHeader.mpaLength(header);
        if (mpaLength + DdpHeader.MPA_HEADER_LENGTH < headerLength) {
            // shorter than its own header: no FPDU boundary can be trusted any more
            return fail(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC,
                    TerminateCodes.DDP_ECODE_CATASTROPHIC);
        }
        return true;
    }

    /** The whole DDP/RDMAP header is in: check it against the stream state and prepare placement. */
    private void headerComplete() {
        int mpaLength = DdpHeader.mpaLength(header);
        payloadLength = mpaLength + DdpHeader.MPA_HEADER_LENGTH - headerLength;
        payloadReceived = 0;
        pad = DdpHeader.padLength(mpaLength);
        boolean last = DdpHeader.last(header);
        if (qp.crcEnabled) {
            crc.reset();
            crc.update(header, 0, headerLength);
        }
        // siw_get_hdr: a continuation must be of the message in progress of its kind
        if (!messages.continues(opcode)) {
            fail(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC, TerminateCodes.DDP_ECODE_CATASTROPHIC);
            return;
        }
        boolean ok = opcode == RdmapOpcode.TERMINATE ? prepareTerminate() : messages.prepare(opcode, last);
        if (!ok) {
            return;
        }
        state = GET_PAYLOAD;
        if (payloadLength < DIRECT_READ_MIN) {
            bulk = false; // small FPDUs again: one read takes several at once
        }
        if (payloadLength == 0) {
            startTrailer();
        }
    }

    /** siw_proc_terminate(): a Terminate from the peer; its copied header is read into the header buffer. */
    private boolean prepareTerminate() {
        header.limit(Math.min(header.capacity(), headerLength + payloadLength)).position(headerLength);
        return true;
    }

    private void startTrailer() {
        state = GET_TRAILER;
        trailer.clear().limit(pad + DdpHeader.MPA_CRC_LENGTH);
    }

    private int readPayload(SocketChannel ch) throws IOException {
        if (opcode == RdmapOpcode.TERMINATE) {
            // the copied header goes to the header buffer, anything beyond its capacity is dropped
            boolean intoHeader = header.hasRemaining();
            ByteBuffer into = intoHeader ? header : discard;
            if (!intoHeader) {
                discard.clear().limit(Math.min(discard.capacity(), payloadLength - payloadReceived));
            }
            int start = into.position();
            int n = fill(ch, into, false);
            if (n <= 0) {
                return n;
            }
            if (qp.crcEnabled) {
                crc.update(into, start, n);
            }
            payloadReceived += n;
            if (payloadReceived == payloadLength) {
                startTrailer();
            }
            return n;
        }
        ByteBuffer target = messages.nextPiece();
        if (target == null) {
            return 0; // a failed check moved the queue pair to error
        }
        int start = target.position();
        int n = fill(ch, target, true);
        if (n <= 0) {
            return n;
        }
        if (qp.crcEnabled) {
            crc.update(target, start, n);
        }
        messages.advance(n);
        payloadReceived += n;
        if (payloadReceived == payloadLength) {
            startTrailer();
        }
        return n;
    }

    /** siw_get_trailer() then siw_rdmap_complete() on the last segment of a message. */
    private void trailerComplete() {
        if (qp.crcEnabled) {
            crc.update(trailer, 0, pad);
            int received = trailer.getInt(pad);
            if (received != crc.wireValue()) {
                fail(TerminateCodes.LAYER_LLP, TerminateCodes.LLP_ETYPE_MPA, TerminateCodes.LLP_ECODE_RECEIVED_CRC);
                return;
            }
        }
        if (!messages.complete(DdpHeader.last(header))) {
            return; // the peer's Terminate ended the queue pair
        }
        state = GET_HEADER;
        header.clear().limit(MIN_HEADER);
    }

    boolean failTagged(int ecode) {
        return fail(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_TAGGED_BUF, ecode);
    }

    boolean failUntagged(int ecode) {
        return fail(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, ecode);
    }

    /** A protocol or protection error in inbound data: Terminate to the peer, queue pair to ERROR. */
    boolean fail(int layer, int etype, int ecode) {
        TerminateMessage t = terminateFor(layer, etype, ecode);
        qp.peerFault("sent Terminate: " + t.describe(), t);
        return false;
    }

    /**
     * siw_init_terminate() ahead of siw_rqe_complete()/siw_sqe_complete(): records the Terminate of an error that
     * a work completion is about to report; {@link #fail} with the same codes then ends the queue pair with it.
     */
    void initTerminate(int layer, int etype, int ecode) {
        TerminateMessage t = terminateFor(layer, etype, ecode);
        qp.initTerminate("sent Terminate: " + t.describe(), t, RejectedPeers.Reason.TERMINATE_SENT);
    }

    private TerminateMessage terminateFor(int layer, int etype, int ecode) {
        return TerminateMessage.forInbound(layer, etype, ecode, header, header.position());
    }
}
