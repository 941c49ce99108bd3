package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePairState;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.softiwarp.ddp.DdpHeader;
import io.nvmf4j.verbs.softiwarp.ddp.DdpTaggedHeader;
import io.nvmf4j.verbs.softiwarp.ddp.DdpUntaggedHeader;
import io.nvmf4j.verbs.softiwarp.mpa.Crc32c;
import io.nvmf4j.verbs.softiwarp.rdmap.RdmapOpcode;
import io.nvmf4j.verbs.softiwarp.rdmap.ReadRequestHeader;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateCodes;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateMessage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The receive side of a queue pair (siw_qp_rx.c, siw_tcp_rx_data): an FPDU state machine over the non-blocking
 * socket. Payload goes to the registered memory it is for (an RDMA Write's sink region, the posted receive's
 * buffers, our Read's sink) only after every check passed - nothing is ever written outside a region. Runs on the
 * progress engine thread only.
 *
 * <p>Syscalls: bytes are taken from a per-QP direct staging buffer that one {@code read} fills with whatever the
 * socket has, so a small FPDU (header, payload, trailer) - or several coalesced ones - costs one read instead of
 * 3-4, and its payload is copied from the staging buffer into the region. When the staging buffer is empty and
 * at least {@link #DIRECT_READ_MIN} bytes of payload are still due, the payload is read from the socket straight
 * into the registered memory (bulk data: no copy). Single-buffer reads only (no allocation, see Transmitter).
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

    private final SoftiwarpQueuePair qp;
    private final ByteBuffer header = ByteBuffer.allocateDirect(128);
    private final ByteBuffer trailer = ByteBuffer.allocateDirect(8);
    private final ByteBuffer discard = ByteBuffer.allocateDirect(512);
    /** Bytes read from the socket not consumed yet, in [position, limit). */
    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING_CAPACITY).limit(0);
    private final Crc32c crc = new Crc32c();
    /**
     * Views of the regions payload recently went to, reused (a host alternates between its response buffers and
     * its data pool: one cached view would be duplicated, i.e. allocated, at every switch).
     */
    private final ByteBuffer[] views = new ByteBuffer[VIEW_CACHE];
    private final SoftiwarpMemoryRegion[] viewRegions = new SoftiwarpMemoryRegion[VIEW_CACHE];
    private int nextView;
    private static final int VIEW_CACHE = 4;

    private int state = GET_HEADER;
    private RdmapOpcode opcode;
    private int headerLength;
    private int payloadLength;
    private int payloadReceived;
    private int pad;

    // tagged message context (RDMA Write, Read Response), siw rx_tagged
    private boolean taggedMore;
    private int taggedOpcode;
    private int taggedStag;
    private long taggedTo;
    private SoftiwarpMemoryRegion writeRegion;
    private SendWqe readWqe;
    private int readSgeIndex;
    private long readSgeOffset;

    // untagged message context (Sends), siw rx_untagged
    private boolean untaggedMore;
    private int untaggedOpcode;
    private ReceiveWqe rqe;
    private long sendProcessed;
    private int sendSgeIndex;
    private long sendSgeOffset;
    private final SoftiwarpMemoryRegion[] sendRegions;

    // expected MSNs (RFC 5041 5.1: start at 1; siw rx_stream.ddp_msn)
    private int expectedSendMsn = 1;
    private int expectedReadMsn = 1;
    private int expectedTerminateMsn = 1;

    Receiver(SoftiwarpQueuePair qp) {
        this.qp = qp;
        this.sendRegions = new SoftiwarpMemoryRegion[qp.attributes().maxRecvSge()];
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
        try {
            while (qp.state() == QueuePairState.RTS && fpdus < MAX_FPDUS_PER_POLL) {
                int n = step(ch);
                if (n < 0) {
                    qp.enterError(DisconnectEvent.Cause.PEER_DISCONNECT, "peer closed the connection", null);
                    return true;
                }
                if (n == 0) {
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
                return ch.read(dst);
            }
            staging.clear();
            int n = ch.read(staging);
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
        if (opcode.tagged() ? taggedMore && taggedOpcode != opcode.code()
                : untaggedMore && untaggedOpcode != opcode.code() && opcode != RdmapOpcode.TERMINATE) {
            fail(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC, TerminateCodes.DDP_ECODE_CATASTROPHIC);
            return;
        }
        boolean ok = switch (opcode) {
            case RDMA_WRITE -> prepareWrite();
            case RDMA_READ_RESPONSE -> prepareReadResponse(last);
            case SEND, SEND_WITH_INVALIDATE, SEND_WITH_SOLICITED_EVENT,
                 SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE -> prepareSend();
            case RDMA_READ_REQUEST -> prepareReadRequest();
            case TERMINATE -> prepareTerminate();
        };
        if (!ok) {
            return;
        }
        if (opcode.tagged()) {
            taggedOpcode = opcode.code();
            taggedMore = !last;
        } else if (opcode != RdmapOpcode.TERMINATE && opcode != RdmapOpcode.RDMA_READ_REQUEST) {
            untaggedOpcode = opcode.code();
            untaggedMore = !last;
        }
        state = GET_PAYLOAD;
        if (payloadLength == 0) {
            startTrailer();
        }
    }

    /** siw_proc_write + siw_write_check_ntoh. */
    private boolean prepareWrite() {
        int stag = DdpTaggedHeader.stag(header);
        long to = DdpTaggedHeader.taggedOffset(header);
        if (!taggedMore) {
            taggedStag = stag;
            taggedTo = to;
            writeRegion = null;
        } else if (stag != taggedStag) {
            return failTagged(TerminateCodes.DDP_ECODE_T_INVALID_STAG);
        } else if (to != taggedTo) {
            return failTagged(TerminateCodes.DDP_ECODE_T_BASE_BOUNDS);
        }
        if (payloadLength == 0) {
            return true; // zero-length Write (e.g. the RFC 6581 RTR): no STag check, as siw
        }
        // every segment is checked, a continuation too: a window invalidated or rebound by its owner while a
        // multi-segment Write arrives takes no more bytes from the next segment on
        StagEntry entry = qp.device.stagTable().lookup(stag);
        if (entry == null) {
            return failTagged(TerminateCodes.DDP_ECODE_T_INVALID_STAG);
        }
        SoftiwarpMemoryRegion mr = entry.target();
        MemoryCheck check = entry.checkRemote(stag, qp.pd, false, true, to, payloadLength, mr);
        if (check != MemoryCheck.OK) {
            return failTagged(check.ddpTaggedCode());
        }
        writeRegion = mr;
        return true;
    }

    /** siw_proc_rresp + siw_rresp_check_ntoh: the response must match our oldest outstanding Read exactly. */
    private boolean prepareReadResponse(boolean last) {
        if (!taggedMore) {
            readWqe = qp.peekRead();
            if (readWqe == null) {
                return fail(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC,
                        TerminateCodes.DDP_ECODE_CATASTROPHIC);
            }
            readSgeIndex = 0;
            readSgeOffset = 0;
            taggedStag = readWqe.numSge > 0 ? readWqe.lkey[0] : 0;
            taggedTo = readWqe.numSge > 0 ? readWqe.address[0] : 0;
        }
        SendWqe wqe = readWqe;
        int stag = DdpTaggedHeader.stag(header);
        long to = DdpTaggedHeader.taggedOffset(header);
        if (stag != taggedStag) {
            return failTagged(TerminateCodes.DDP_ECODE_T_INVALID_STAG);
        }
        if (to != taggedTo + wqe.processed || wqe.processed + payloadLength > wqe.totalLength
                || (last && wqe.processed + payloadLength != wqe.totalLength)) {
            return failTagged(TerminateCodes.DDP_ECODE_T_BASE_BOUNDS);
        }
        return true;
    }

    /** siw_proc_send + siw_send_check_ntoh. */
    private boolean prepareSend() {
        if (DdpUntaggedHeader.queueNumber(header) != DdpUntaggedHeader.QN_SEND) {
            return failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_QN);
        }
        if (DdpUntaggedHeader.msn(header) != expectedSendMsn) {
            return failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_MSN_RANGE);
        }
        if (!untaggedMore) {
            rqe = qp.peekReceive();
            if (rqe == null) {
                return failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_MSN_NOBUF);
            }
            sendProcessed = 0;
            sendSgeIndex = 0;
            sendSgeOffset = 0;
            java.util.Arrays.fill(sendRegions, null);
        }
        if (Integer.toUnsignedLong(DdpUntaggedHeader.messageOffset(header)) != sendProcessed) {
            return failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_MO);
        }
        if (sendProcessed + payloadLength > rqe.totalLength) {
            ReceiveWqe r = rqe;
            qp.completeReceive(r, WcStatus.LOC_LEN_ERR, 0, false, 0);
            return failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_MSN_NOBUF);
        }
        return true;
    }

    /** Inbound RDMA Read Request (siw_proc_rreq / siw_init_rresp checks). */
    private boolean prepareReadRequest() {
        if (DdpUntaggedHeader.queueNumber(header) != DdpUntaggedHeader.QN_READ_REQUEST) {
            return failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_QN);
        }
        if (DdpUntaggedHeader.msn(header) != expectedReadMsn) {
            return failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_MSN_RANGE);
        }
        if (payloadLength != 0) {
            // "Inbound RREQ's cannot carry user data" (siw_proc_rreq)
            return fail(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC,
                    TerminateCodes.DDP_ECODE_CATASTROPHIC);
        }
        return true;
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
        ByteBuffer target = nextPiece();
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
        advance(n);
        payloadReceived += n;
        if (payloadReceived == payloadLength) {
            startTrailer();
        }
        return n;
    }

    /** The view of registered memory the next payload bytes go to. */
    private ByteBuffer nextPiece() {
        int remaining = payloadLength - payloadReceived;
        switch (opcode) {
            case RDMA_WRITE -> {
                SoftiwarpMemoryRegion mr = writeRegion;
                long offset = taggedTo + payloadReceived - mr.address();
                return viewOf(mr, offset, remaining);
            }
            case RDMA_READ_RESPONSE -> {
                SendWqe wqe = readWqe;
                while (wqe.length[readSgeIndex] == 0
                        || readSgeOffset == Integer.toUnsignedLong(wqe.length[readSgeIndex])) {
                    readSgeIndex++;
                    readSgeOffset = 0;
                }
                SoftiwarpMemoryRegion mr = wqe.regions[readSgeIndex];
                int piece = (int) Math.min(remaining, Integer.toUnsignedLong(wqe.length[readSgeIndex]) - readSgeOffset);
                long address = wqe.address[readSgeIndex] + readSgeOffset;
                MemoryCheck check = mr == null ? MemoryCheck.STAG_INVALID
                        : mr.check(wqe.lkey[readSgeIndex], qp.pd, true, false, false, address, piece);
                if (check != MemoryCheck.OK) {
                    qp.completeRead(wqe, WcStatus.LOC_PROT_ERR, 0);
                    failTagged(check.ddpTaggedCode());
                    return null;
                }
                return viewOf(mr, address - mr.address(), piece);
            }
            default -> {
                ReceiveWqe r = rqe;
                while (r.length[sendSgeIndex] == 0
                        || sendSgeOffset == Integer.toUnsignedLong(r.length[sendSgeIndex])) {
                    sendSgeIndex++;
                    sendSgeOffset = 0;
                }
                int piece = (int) Math.min(remaining, Integer.toUnsignedLong(r.length[sendSgeIndex]) - sendSgeOffset);
                long address = r.address[sendSgeIndex] + sendSgeOffset;
                SoftiwarpMemoryRegion mr = sendRegions[sendSgeIndex];
                if (mr == null) {
                    mr = qp.device.stagTable().lookupRegion(r.lkey[sendSgeIndex]);
                }
                MemoryCheck check = mr == null ? MemoryCheck.STAG_INVALID
                        : mr.check(r.lkey[sendSgeIndex], qp.pd, true, false, false, address, piece);
                if (check != MemoryCheck.OK) {
                    // siw_proc_send: siw_check_sge failure is a DDP catastrophic error
                    qp.completeReceive(r, WcStatus.LOC_PROT_ERR, 0, false, 0);
                    fail(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC,
                            TerminateCodes.DDP_ECODE_CATASTROPHIC);
                    return null;
                }
                sendRegions[sendSgeIndex] = mr;
                return viewOf(mr, address - mr.address(), piece);
            }
        }
    }

    private ByteBuffer viewOf(SoftiwarpMemoryRegion mr, long offset, int length) {
        for (int i = 0; i < VIEW_CACHE; i++) {
            if (viewRegions[i] == mr) {
                return mr.view(views[i], offset, length);
            }
        }
        ByteBuffer v = mr.view(null, offset, length);
        if (mr.hasWholeView()) {
            int slot = nextView;
            nextView = (slot + 1) % VIEW_CACHE;
            views[slot] = v;
            viewRegions[slot] = mr;
        }
        return v;
    }

    private void advance(int n) {
        switch (opcode) {
            case RDMA_READ_RESPONSE -> readSgeOffset += n;
            case RDMA_WRITE -> {
            }
            default -> sendSgeOffset += n;
        }
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
        boolean last = DdpHeader.last(header);
        switch (opcode) {
            case RDMA_WRITE -> taggedTo += payloadLength;
            case RDMA_READ_RESPONSE -> {
                SendWqe wqe = readWqe;
                wqe.processed += payloadLength;
                if (last) {
                    readWqe = null;
                    qp.completeRead(wqe, WcStatus.SUCCESS, 0);
                    qp.kickTx(); // the ORQ has room again
                }
            }
            case SEND, SEND_WITH_INVALIDATE, SEND_WITH_SOLICITED_EVENT, SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE -> {
                sendProcessed += payloadLength;
                if (last) {
                    completeSend();
                }
            }
            case RDMA_READ_REQUEST -> queueReadResponse();
            case TERMINATE -> {
                terminateReceived();
                return;
            }
        }
        state = GET_HEADER;
        header.clear().limit(MIN_HEADER);
    }

    private void completeSend() {
        expectedSendMsn++;
        ReceiveWqe r = rqe;
        rqe = null;
        if (opcode == RdmapOpcode.SEND_WITH_INVALIDATE || opcode == RdmapOpcode.SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE) {
            int stag = DdpUntaggedHeader.ulpReserved(header);
            StagEntry entry = qp.device.stagTable().lookup(stag);
            // siw_invalidate_stag() + siw_rdmap_complete(): an STag that names nothing is a remote operation error,
            // one the peer may not invalidate (a registered region - never remotely invalidatable - or a window
            // of another PD) a remote protection error, both "STag cannot be invalidated" (RFC 5040 4.8). The
            // Terminate ends this connection only; the memory stays valid for its owner and every other peer.
            int outcome = entry == null ? StagEntry.INVALIDATE_UNKNOWN : entry.remoteInvalidate(stag, qp.pd);
            if (outcome != StagEntry.INVALIDATED) {
                qp.completeReceive(r, WcStatus.REM_INV_REQ_ERR, (int) sendProcessed, false, 0);
                fail(TerminateCodes.LAYER_RDMAP,
                        outcome == StagEntry.INVALIDATE_REFUSED ? TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION
                                : TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION,
                        TerminateCodes.RDMAP_ECODE_CANNOT_INVALIDATE);
                return;
            }
            qp.completeReceive(r, WcStatus.SUCCESS, (int) sendProcessed, true, stag);
        } else {
            qp.completeReceive(r, WcStatus.SUCCESS, (int) sendProcessed, false, 0);
        }
    }

    /** siw_init_rresp(): queue the answer; IRD exceeded is an RDMAP catastrophic stream error. */
    private void queueReadResponse() {
        if (qp.irqTail - qp.irqHead >= qp.irq.length) {
            fail(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION,
                    TerminateCodes.RDMAP_ECODE_CATASTROPHIC_STREAM);
            return;
        }
        ReadResponseWqe r = qp.irq[(int) (qp.irqTail % qp.irq.length)];
        r.sinkStag = ReadRequestHeader.sinkStag(header);
        r.sinkTo = ReadRequestHeader.sinkTo(header);
        r.readSize = ReadRequestHeader.readSize(header);
        r.sourceStag = ReadRequestHeader.sourceStag(header);
        r.sourceTo = ReadRequestHeader.sourceTo(header);
        r.msn = expectedReadMsn;
        r.processed = 0;
        expectedReadMsn++;
        qp.irqTail++;
        qp.kickTx();
    }

    private void terminateReceived() {
        int end = Math.min(header.capacity(), headerLength + payloadLength);
        TerminateMessage t = TerminateMessage.decode(header, end);
        boolean bogus = DdpUntaggedHeader.queueNumber(header) != DdpUntaggedHeader.QN_TERMINATE
                || DdpUntaggedHeader.msn(header) != expectedTerminateMsn
                || DdpUntaggedHeader.messageOffset(header) != 0;
        SendWqe read = qp.peekRead();
        if (read != null) {
            qp.completeRead(read, statusFor(t), t.packed());
        }
        qp.enterError(DisconnectEvent.Cause.TERMINATE_RECEIVED,
                "peer sent Terminate: " + t.describe() + (bogus ? " (with bogus QN/MSN/MO)" : ""), null);
    }

    /** The local status of our oldest outstanding Read when the peer terminates. */
    private static WcStatus statusFor(TerminateMessage t) {
        if (t.layer() == TerminateCodes.LAYER_DDP && t.errorType() == TerminateCodes.DDP_ETYPE_TAGGED_BUF
                || t.layer() == TerminateCodes.LAYER_RDMAP
                && t.errorType() == TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION) {
            return WcStatus.REM_ACCESS_ERR;
        }
        if (t.layer() == TerminateCodes.LAYER_DDP && t.errorType() == TerminateCodes.DDP_ETYPE_UNTAGGED_BUF) {
            return WcStatus.REM_INV_REQ_ERR;
        }
        return WcStatus.REM_OP_ERR;
    }

    private boolean failTagged(int ecode) {
        return fail(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_TAGGED_BUF, ecode);
    }

    private boolean failUntagged(int ecode) {
        return fail(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF, ecode);
    }

    /** A protocol or protection error in inbound data: Terminate to the peer, queue pair to ERROR. */
    private boolean fail(int layer, int etype, int ecode) {
        int received = header.position();
        TerminateMessage t = TerminateMessage.forInbound(layer, etype, ecode, header, received);
        qp.enterError(DisconnectEvent.Cause.TERMINATE_SENT, "sent Terminate: " + t.describe(), t);
        return false;
    }
}
