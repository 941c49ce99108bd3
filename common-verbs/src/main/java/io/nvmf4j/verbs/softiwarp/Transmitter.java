package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePairState;
import io.nvmf4j.verbs.SendOpcode;
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
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The transmit side of a queue pair (siw_qp_tx.c): turns work requests and answers to peer Reads into FPDUs.
 * Answers to RDMA Read Requests go before new send queue work (siw_activate_tx). Only one thread runs it at a time
 * (SoftiwarpQueuePair.kickTx); nothing is allocated per FPDU in steady state.
 *
 * <p>How an FPDU leaves: with a payload of at most {@code copyThreshold} bytes (every NVMe capsule and response,
 * 4 KiB data) header, payload, pad and CRC are assembled straight in a per-QP direct buffer, the outbox (one copy
 * of the payload, from the registered memory to the outbox); the outbox goes out with one {@code write} once nothing more is ready - an RDMA Write and the Send posted behind
 * it (an NVMe read's data and its response capsule) cost one syscall, one TCP segment under TCP_NODELAY. Larger payloads go as three single-buffer writes:
 * header, the payload straight out of the registered memory, pad+CRC. No gathering write: on JDK 25
 * {@code SocketChannel.write(ByteBuffer[])} allocates two objects per memory-segment-backed buffer
 * (sun.nio.ch.IOUtil: a Releaser and a LinkedRunnable to release the segment's scope), a single-buffer write of
 * the same buffer allocates nothing.
 */
final class Transmitter {
    /** Largest DDP/RDMAP header we send (a Read Request) plus the largest pad and the CRC. */
    private static final int STAGING_OVERHEAD = ReadRequestHeader.LENGTH + 3 + DdpHeader.MPA_CRC_LENGTH;
    /** Outbox size: several 4 KiB data FPDUs with their capsules, well under a loopback socket's send buffer. */
    private static final int OUTBOX_BYTES = 64 * 1024;

    private final SoftiwarpQueuePair qp;
    /** The queue heads this side moves (the drain owner's, see {@link TxContext}). */
    private final TxContext tx;
    /** The FPDU header is encoded here, at 0: it is the first piece of a large FPDU, or copied into the outbox. */
    private final ByteBuffer staging;
    private final MemorySegment stagingSegment;
    /** Room the outbox must have before an FPDU is built: the largest copied FPDU fits then. */
    private final int copiedFpduMax;
    private final int copyThreshold;
    private final ByteBuffer trailer = ByteBuffer.allocateDirect(8);
    /** The buffers of the FPDU being written, in wire order; written one by one from {@link #pieceIndex}. */
    private final ByteBuffer[] pieces;
    /** Per piece slot, the view last used and the region it belongs to (reused while the region repeats). */
    private final ByteBuffer[] slotViews;
    private final SoftiwarpMemoryRegion[] slotRegions;
    private final Crc32c crc = new Crc32c();
    /**
     * Copied FPDUs that are ready, in wire order, written together when nothing more is ready (or the next FPDU is
     * a large one, or this is nearly full): one syscall instead of one per FPDU. {@link #outbox} is filled
     * (position = end of the data); {@link #outboxWriter} is a second view of the same memory for writing from
     * {@link #outboxFlushed}.
     */
    private final ByteBuffer outbox;
    private final MemorySegment outboxSegment;
    private final ByteBuffer outboxWriter;
    private int outboxFlushed;
    private int pieceCount;
    private int pieceIndex;

    private static final int JOB_NONE = 0;
    private static final int JOB_SQ = 1;
    private static final int JOB_READ_RESPONSE = 2;
    private int job = JOB_NONE;
    private int jobPayload;
    private SendWqe sqWqe;
    private ReadResponseWqe response;
    // position inside the SG list of the current SQ WQE
    private int sgeIndex;
    private long sgeOffset;
    private int sendMsn;
    private int readMsn;

    Transmitter(SoftiwarpQueuePair qp) {
        this.qp = qp;
        this.tx = qp.txContext;
        int slots = qp.attributes().maxSendSge() + 3;
        pieces = new ByteBuffer[slots];
        slotViews = new ByteBuffer[slots];
        slotRegions = new SoftiwarpMemoryRegion[slots];
        copyThreshold = Math.min(qp.config.copyThreshold(), qp.config.maxFpduPayload());
        staging = ByteBuffer.allocateDirect(STAGING_OVERHEAD);
        copiedFpduMax = STAGING_OVERHEAD + copyThreshold;
        outbox = ByteBuffer.allocateDirect(Math.max(OUTBOX_BYTES, copiedFpduMax));
        outboxWriter = outbox.duplicate();
        stagingSegment = MemorySegment.ofBuffer(staging);
        outboxSegment = MemorySegment.ofBuffer(outbox);
    }

    /** Writes the rest of the FPDU in progress; false if the socket took not all of it. */
    private boolean writePieces(SocketChannel ch) throws IOException {
        while (pieceIndex < pieceCount) {
            ByteBuffer piece = pieces[pieceIndex];
            ch.write(piece);
            if (piece.hasRemaining()) {
                return false;
            }
            pieceIndex++;
        }
        return true;
    }

    /** Sends as much as the socket takes; returns when idle or blocked (then the engine waits for OP_WRITE). */
    void pump() {
        SocketChannel ch = qp.channel;
        if (ch == null) {
            return;
        }
        try {
            while (true) {
                if (pieceCount > 0) {
                    // a large FPDU: the outbox (earlier in wire order) first, then its pieces
                    if (!flushOutbox(ch) || !writePieces(ch)) {
                        blocked();
                        return;
                    }
                    pieceCount = 0;
                    pieceIndex = 0;
                    fpduSent();
                    continue;
                }
                if (qp.state() != QueuePairState.RTS) {
                    break;
                }
                if (outbox.remaining() < copiedFpduMax && !flushOutbox(ch)) {
                    blocked();
                    return;
                }
                if (!buildNext()) {
                    break;
                }
                if (pieceCount == 0) {
                    // a copied FPDU is in the outbox; its work request is done as far as we are concerned
                    // (siw completes a WQE once tcp_sendmsg took its bytes, which a copy is the equivalent of)
                    fpduSent();
                }
            }
            if (!flushOutbox(ch)) {
                blocked();
            }
        } catch (IOException e) {
            qp.enterError(DisconnectEvent.Cause.TRANSPORT_ERROR, "send failed: " + e.getMessage(), null);
        }
    }

    /**
     * Builds the next FPDU into the outbox (copied) or the piece list (large); false if there is nothing to send
     * now. The caller made room in the outbox for the largest copied FPDU. A message
     * in progress is finished first: DDP forbids interleaving two tagged messages (a Read Response inside a
     * multi-segment Write is a protocol error at the peer, siw_get_hdr); otherwise answers to Read Requests go
     * first (siw_activate_tx).
     */
    private boolean buildNext() {
        if (job == JOB_SQ) {
            return buildFromSendQueue();
        }
        if (job == JOB_READ_RESPONSE || tx.irqHead != qp.rxStream.irqTail) {
            return buildReadResponse();
        }
        if (tx.sqHead != qp.sqTail) {
            return buildFromSendQueue();
        }
        return false;
    }

    private void blocked() {
        qp.txBlocked = true;
        ProgressEngine e = qp.engine;
        if (e != null) {
            e.wakeup();
        }
    }

    /**
     * Writes the FPDUs gathered in the outbox (one {@code write} for everything that was ready at once, e.g. an
     * RDMA Write and the Send behind it, or a burst of responses); false if the socket did not take all of it.
     */
    boolean flushOutbox(SocketChannel ch) throws IOException {
        int end = outbox.position();
        if (end == 0) {
            return true;
        }
        outboxWriter.limit(end).position(outboxFlushed);
        ch.write(outboxWriter);
        outboxFlushed = outboxWriter.position();
        if (outboxFlushed < end) {
            return false;
        }
        outbox.clear();
        outboxFlushed = 0;
        return true;
    }

    /** Builds the next FPDU of the WQE at the send queue's transmit head; false to stop (stall or error). */
    private boolean buildFromSendQueue() {
        SendWqe wqe = qp.sq[(int) (tx.sqHead % qp.sq.length)];
        if (job != JOB_SQ || sqWqe != wqe) {
            if (wqe.opcode == SendOpcode.RDMA_READ && !qp.orqHasRoom()) {
                return false; // ORD reached: wait for a Read Response (siw orq_fence)
            }
            if (!resolveLocal(wqe)) {
                return false;
            }
            job = JOB_SQ;
            sqWqe = wqe;
            sgeIndex = 0;
            sgeOffset = 0;
            if (wqe.opcode == SendOpcode.SEND || wqe.opcode == SendOpcode.SEND_WITH_INVALIDATE) {
                sendMsn++;
            }
        }
        staging.clear();
        switch (wqe.opcode) {
            case SEND, SEND_WITH_INVALIDATE -> {
                int payload = nextPayload(wqe);
                boolean last = wqe.processed + payload == wqe.totalLength;
                boolean invalidate = wqe.opcode == SendOpcode.SEND_WITH_INVALIDATE;
                RdmapOpcode op = invalidate
                        ? (wqe.solicited ? RdmapOpcode.SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE
                        : RdmapOpcode.SEND_WITH_INVALIDATE)
                        : (wqe.solicited ? RdmapOpcode.SEND_WITH_SOLICITED_EVENT : RdmapOpcode.SEND);
                DdpUntaggedHeader.encode(staging, op.code(), last, invalidate ? wqe.invalidateRkey : 0,
                        DdpUntaggedHeader.QN_SEND, sendMsn, (int) wqe.processed, payload);
                assemble(DdpUntaggedHeader.LENGTH, wqe, payload);
            }
            case RDMA_WRITE -> {
                int payload = nextPayload(wqe);
                boolean last = wqe.processed + payload == wqe.totalLength;
                DdpTaggedHeader.encode(staging, RdmapOpcode.RDMA_WRITE.code(), last, wqe.rkey,
                        wqe.remoteAddress + wqe.processed, payload);
                assemble(DdpTaggedHeader.LENGTH, wqe, payload);
            }
            case RDMA_READ -> {
                readMsn++;
                int sinkStag = wqe.numSge > 0 ? wqe.lkey[0] : 0;
                long sinkTo = wqe.numSge > 0 ? wqe.address[0] : 0;
                ReadRequestHeader.encode(staging, readMsn, sinkStag, sinkTo, (int) wqe.totalLength, wqe.rkey,
                        wqe.remoteAddress);
                // in the ORQ before it is on the wire: the response may arrive before this thread continues
                qp.orqAppend(wqe);
                assemble(ReadRequestHeader.LENGTH, null, 0);
            }
        }
        return true;
    }

    /** siw_check_sgl_tx(): every local SGE must name a valid region of our PD covering it. */
    private boolean resolveLocal(SendWqe wqe) {
        boolean sink = wqe.opcode == SendOpcode.RDMA_READ;
        for (int i = 0; i < wqe.numSge; i++) {
            if (wqe.length[i] == 0) {
                continue;
            }
            SoftiwarpMemoryRegion mr = qp.device.stagTable().lookupRegion(wqe.lkey[i]);
            MemoryCheck check = mr == null ? MemoryCheck.STAG_INVALID
                    : mr.check(wqe.lkey[i], qp.pd, sink, false, false, wqe.address[i],
                    Integer.toUnsignedLong(wqe.length[i]));
            if (check != MemoryCheck.OK) {
                String detail = "local protection error in work request " + wqe.wrId + " (SGE " + i + ": " + check
                        + ")";
                // recorded before the completion is visible: an application that disconnects on LOC_PROT_ERR
                // still sends this Terminate (siw_init_terminate before siw_sqe_complete)
                qp.initTerminate(detail, TerminateMessage.plain(TerminateCodes.LAYER_RDMAP,
                        TerminateCodes.RDMAP_ETYPE_CATASTROPHIC, TerminateCodes.RDMAP_ECODE_UNSPECIFIED), null);
                tx.sqHead++;
                qp.completeSend(wqe, WcStatus.LOC_PROT_ERR, 0, 0);
                qp.enterError(DisconnectEvent.Cause.TERMINATE_SENT, detail, null);
                return false;
            }
            wqe.regions[i] = mr;
        }
        return true;
    }

    private int nextPayload(SendWqe wqe) {
        return (int) Math.min(wqe.totalLength - wqe.processed, qp.config.maxFpduPayload());
    }

    /** Lays out the FPDU: header, payload from the WQE's SG list (from the current position), pad and CRC. */
    private void assemble(int headerLength, SendWqe wqe, int payload) {
        boolean copy = startFpdu(headerLength, payload);
        int position = outbox.position() + headerLength;
        int remaining = payload;
        while (remaining > 0) {
            while (wqe.length[sgeIndex] == 0 || sgeOffset == Integer.toUnsignedLong(wqe.length[sgeIndex])) {
                sgeIndex++;
                sgeOffset = 0;
            }
            SoftiwarpMemoryRegion mr = wqe.regions[sgeIndex];
            int piece = (int) Math.min(remaining, Integer.toUnsignedLong(wqe.length[sgeIndex]) - sgeOffset);
            long offset = wqe.address[sgeIndex] - mr.address() + sgeOffset;
            if (copy) {
                MemorySegment.copy(mr.segment(), offset, outboxSegment, position, piece);
                position += piece;
            } else {
                addPayload(mr, offset, piece);
            }
            sgeOffset += piece;
            remaining -= piece;
        }
        jobPayload = payload;
        finishFpdu(headerLength, payload, copy);
    }

    /**
     * After the header was encoded into the staging buffer: a copied FPDU gets the header into the outbox (its
     * payload follows there) and no pieces; a large one starts its piece list with the header. True to copy.
     */
    private boolean startFpdu(int headerLength, int payload) {
        pieceIndex = 0;
        boolean copy = payload <= copyThreshold;
        if (copy) {
            MemorySegment.copy(stagingSegment, 0, outboxSegment, outbox.position(), headerLength);
            pieceCount = 0;
        } else {
            staging.limit(headerLength).position(0);
            pieces[0] = staging;
            pieceCount = 1;
        }
        return copy;
    }

    private void addPayload(SoftiwarpMemoryRegion mr, long offset, int length) {
        int slot = pieceCount;
        ByteBuffer reuse = slotRegions[slot] == mr ? slotViews[slot] : null;
        ByteBuffer view = mr.view(reuse, offset, length);
        slotViews[slot] = view;
        slotRegions[slot] = mr.hasWholeView() ? mr : null;
        pieces[pieceCount++] = view;
    }

    /** Pad to 4 and CRC (RFC 5044 4.1, 4.4), computed over header, payload and pad. */
    private void finishFpdu(int headerLength, int payload, boolean copied) {
        int mpaLength = headerLength - DdpHeader.MPA_HEADER_LENGTH + payload;
        int pad = DdpHeader.padLength(mpaLength);
        if (copied) {
            int start = outbox.position();
            int end = start + headerLength + payload;
            for (int i = 0; i < pad; i++) {
                outbox.put(end + i, (byte) 0);
            }
            int crcValue = 0;
            if (qp.crcEnabled) {
                crc.reset();
                crc.update(outbox, start, end + pad - start);
                crcValue = crc.wireValue();
            }
            outbox.putInt(end + pad, crcValue);
            outbox.position(end + pad + DdpHeader.MPA_CRC_LENGTH);
            return;
        }
        trailer.clear();
        for (int i = 0; i < pad; i++) {
            trailer.put(i, (byte) 0);
        }
        int crcValue = 0;
        if (qp.crcEnabled) {
            crc.reset();
            crc.update(staging, 0, headerLength);
            for (int i = 1; i < pieceCount; i++) {
                crc.update(pieces[i], pieces[i].position(), pieces[i].remaining());
            }
            crc.update(trailer, 0, pad);
            crcValue = crc.wireValue();
        }
        trailer.putInt(pad, crcValue);
        trailer.limit(pad + DdpHeader.MPA_CRC_LENGTH).position(0);
        pieces[pieceCount++] = trailer;
    }

    /** Bookkeeping after an FPDU left completely. */
    private void fpduSent() {
        if (job == JOB_SQ) {
            SendWqe wqe = sqWqe;
            if (wqe.opcode == SendOpcode.RDMA_READ) {
                tx.sqHead++;
                job = JOB_NONE;
                sqWqe = null;
                return;
            }
            wqe.processed += jobPayload;
            if (wqe.processed == wqe.totalLength) {
                tx.sqHead++;
                job = JOB_NONE;
                sqWqe = null;
                qp.completeSend(wqe, WcStatus.SUCCESS, (int) wqe.totalLength, 0);
            }
        } else if (job == JOB_READ_RESPONSE) {
            ReadResponseWqe r = response;
            r.processed += jobPayload;
            if (r.processed == Integer.toUnsignedLong(r.readSize)) {
                tx.irqHead++;
                job = JOB_NONE;
                response = null;
            }
        }
    }

    /** Builds the next Read Response FPDU for the IRQ head (siw_qp_sq_proc_tx for SIW_OP_READ_RESPONSE). */
    private boolean buildReadResponse() {
        ReadResponseWqe r = qp.irq[(int) (tx.irqHead % qp.irq.length)];
        long size = Integer.toUnsignedLong(r.readSize);
        if (job != JOB_READ_RESPONSE || response != r) {
            job = JOB_READ_RESPONSE;
            response = r;
            r.processed = 0;
            r.source = null;
            r.sourceEntry = null;
            if (size > 0) {
                StagEntry entry = qp.device.stagTable().lookup(r.sourceStag);
                SoftiwarpMemoryRegion mr = entry == null ? null : entry.target();
                MemoryCheck check = entry == null ? MemoryCheck.STAG_INVALID
                        : entry.checkRemote(r.sourceStag, qp.pd, true, false, r.sourceTo, size, mr);
                if (check != MemoryCheck.OK) {
                    return refuseRead(r, check);
                }
                r.source = mr;
                r.sourceEntry = entry;
            }
        } else if (r.sourceEntry != r.source) {
            // a memory window: its owner may invalidate it while the response is going out; check it again for
            // each segment so that no byte leaves from memory the window no longer covers
            long rest = size - r.processed;
            MemoryCheck check = r.sourceEntry.checkRemote(r.sourceStag, qp.pd, true, false,
                    r.sourceTo + r.processed, rest, r.source);
            if (check != MemoryCheck.OK) {
                return refuseRead(r, check);
            }
        }
        int payload = (int) Math.min(size - r.processed, qp.config.maxFpduPayload());
        boolean last = r.processed + payload == size;
        staging.clear();
        DdpTaggedHeader.encode(staging, RdmapOpcode.RDMA_READ_RESPONSE.code(), last, r.sinkStag,
                r.sinkTo + r.processed, payload);
        boolean copy = startFpdu(DdpTaggedHeader.LENGTH, payload);
        if (payload > 0) {
            long offset = r.sourceTo - r.source.address() + r.processed;
            if (copy) {
                MemorySegment.copy(r.source.segment(), offset, outboxSegment,
                        outbox.position() + DdpTaggedHeader.LENGTH, payload);
            } else {
                addPayload(r.source, offset, payload);
            }
        }
        jobPayload = payload;
        finishFpdu(DdpTaggedHeader.LENGTH, payload, copy);
        return true;
    }

    private boolean refuseRead(ReadResponseWqe r, MemoryCheck check) {
        job = JOB_NONE;
        response = null;
        qp.peerFault("peer RDMA Read of STag 0x" + Integer.toHexString(r.sourceStag) + " refused: " + check,
                TerminateTx.forReadRequest(r, check));
        return false;
    }

    /**
     * Before a Terminate (siw_send_terminate()): completes the FPDU whose pieces are half on the wire - its payload
     * is written straight from registered memory that is the application's again once the work requests are
     * flushed - and drops one not started. False if the socket has no room for the rest (nothing more is tried).
     */
    boolean finishStartedFpdu(SocketChannel ch) throws IOException {
        boolean piecesStarted = pieceCount > 0 && (pieceIndex > 0 || pieces[0].position() > 0);
        if (piecesStarted) {
            // the outbox went out before these pieces started (pump writes it first), so it is empty
            if (!writePieces(ch)) {
                return false;
            }
        }
        pieceCount = 0;
        pieceIndex = 0;
        return true;
    }
}
