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
 * <p>How FPDUs leave: everything that is ready goes out in one gathering {@code write} (writev), as siw pushes
 * several FPDUs per tcp_sendmsg. Headers, pads and CRCs are assembled in a per-QP direct buffer, the outbox; a
 * payload of at most {@code copyThreshold} bytes (every NVMe capsule and response, 4 KiB data) is copied there
 * too, between its header and trailer. A larger payload stays where it is: the write list (the iovec) gets the
 * outbox bytes up to its header, then views of the registered memory, then the outbox again from its trailer on,
 * so a 128 KiB RDMA Write is one writev of about 17 pieces and no copy. Views gather without allocating only for
 * regions registered from a direct ByteBuffer (JDK 25's IOUtil allocates a scope releaser per memory-segment
 * view, GatheringWriteAllocationTest): a payload from any other region is copied into the outbox whatever its
 * size.
 *
 * <p>When work completes: a work request whose bytes were all copied is done once copied (siw completes a WQE
 * once tcp_sendmsg took its bytes, which a copy is the equivalent of). One with a payload still referenced by the
 * write list completes only once the socket took the whole list ({@link #pending}), since its memory is the
 * application's again after the completion.
 */
final class Transmitter {
    /** Largest DDP/RDMAP header we send (a Read Request). */
    private static final int HEADER_MAX = ReadRequestHeader.LENGTH;
    /** Largest pad plus the CRC. */
    private static final int TRAILER_MAX = 3 + DdpHeader.MPA_CRC_LENGTH;
    /**
     * Outbox size at least: several 4 KiB data FPDUs with their capsules, well under a loopback socket's buffer.
     * Each queue pair holds one from its creation on, before its peer authenticated (a bounded share per
     * connection); it grows only if the largest copied FPDU would not fit.
     */
    private static final int OUTBOX_BYTES = 64 * 1024;
    /**
     * Payload from registered memory gathered before the write list goes out: a 128 KiB transfer and its response
     * in one writev, and a bound on how long a gathered work request waits for its completion.
     */
    static final int BATCH_PAYLOAD_BYTES = 256 * 1024;
    /** Write list entries: enough for the batch's FPDUs at the default FPDU size and a full SG list each. */
    private static final int WRITE_LIST_ENTRIES = 128;

    private final SoftiwarpQueuePair qp;
    /** The queue heads this side moves (the drain owner's, see {@link TxContext}). */
    private final TxContext tx;
    /** The FPDU header is encoded here, at 0, then copied into the outbox. */
    private final ByteBuffer staging;
    private final MemorySegment stagingSegment;
    private final int copyThreshold;
    /** Write list entries one FPDU may add: the outbox up to its header, a payload piece per SGE. */
    private final int entriesPerFpdu;
    private final Crc32c crc = new Crc32c();
    /**
     * The bytes we assemble: headers, pads and CRCs, and copied payloads, in wire order from 0 to its position.
     * [0, {@link #chunkStart}) is already in the write list; it is cleared once the whole list was written.
     */
    private final ByteBuffer outbox;
    private final MemorySegment outboxSegment;
    private int chunkStart;
    /** The write list, in wire order: [writeFirst, writeCount) still has bytes to go. */
    private final ByteBuffer[] writeList;
    private int writeFirst;
    private int writeCount;
    /**
     * Write calls made on the socket, by whichever thread runs the pump (one at a time, TxContext). For tests: read
     * after the completions of the sends counted, whose hand-over through the CQ's lock publishes it.
     */
    long socketWrites;
    /** Per write list entry, a view of the outbox (made once) for when that entry is a stretch of the outbox. */
    private final ByteBuffer[] outboxViews;
    /** Per write list entry, the payload view last used there and the region it belongs to (reused while it repeats). */
    private final ByteBuffer[] payloadViews;
    private final SoftiwarpMemoryRegion[] payloadRegions;
    /** The first write list entry of the payload of the gathered FPDU being built. */
    private int fpduPayloadEntry;
    /** Payload bytes of registered memory in the write list. */
    private int gatheredBytes;
    /** Work requests sent whole whose payload is in the write list: completed once the socket took the list. */
    private final SendWqe[] pending;
    private int pendingCount;

    private static final int JOB_NONE = 0;
    private static final int JOB_SQ = 1;
    private static final int JOB_READ_RESPONSE = 2;
    private int job = JOB_NONE;
    private int jobPayload;
    /** Whether the current job's memory (its SG list, or a Read Response's source) gathers without allocating. */
    private boolean jobGatherable;
    /** Whether an FPDU of the current send queue job went into the write list from registered memory. */
    private boolean jobGathered;
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
        int maxSge = Math.max(1, qp.attributes().maxSendSge());
        entriesPerFpdu = 1 + maxSge;
        // room for the batch, one more FPDU and the outbox stretch that closes the list
        int entries = Math.max(WRITE_LIST_ENTRIES, 2 * entriesPerFpdu + 1);
        writeList = new ByteBuffer[entries];
        outboxViews = new ByteBuffer[entries];
        payloadViews = new ByteBuffer[entries];
        payloadRegions = new SoftiwarpMemoryRegion[entries];
        pending = new SendWqe[entries];
        copyThreshold = Math.min(qp.config.copyThreshold(), qp.config.maxFpduPayload());
        staging = ByteBuffer.allocateDirect(HEADER_MAX);
        // the largest FPDU copied whole (a payload of a region that does not gather) must fit an empty outbox
        outbox = ByteBuffer.allocateDirect(Math.max(OUTBOX_BYTES, HEADER_MAX + qp.config.maxFpduPayload()
                + TRAILER_MAX));
        for (int i = 0; i < entries; i++) {
            outboxViews[i] = outbox.duplicate();
        }
        stagingSegment = MemorySegment.ofBuffer(staging);
        outboxSegment = MemorySegment.ofBuffer(outbox);
    }

    /** Sends as much as the socket takes; returns when idle or blocked (then the engine waits for OP_WRITE). */
    void pump() {
        SocketChannel ch = qp.channel;
        if (ch == null) {
            return;
        }
        try {
            while (qp.state() == QueuePairState.RTS) {
                if (!startJob()) {
                    break;
                }
                if (!hasRoom() && !flush(ch)) {
                    blocked();
                    return;
                }
                if (job == JOB_SQ) {
                    buildFromSendQueue();
                } else {
                    buildReadResponse();
                }
                fpduBuilt();
            }
            if (!flush(ch)) {
                blocked();
            }
        } catch (IOException e) {
            qp.enterError(DisconnectEvent.Cause.TRANSPORT_ERROR, "send failed: " + e.getMessage(), null);
        }
    }

    /**
     * Whether the next FPDU of the current job fits in the outbox and the write list, within the batch bound: its
     * header and trailer, and its payload too if that is copied. A pending work request has at least two write list
     * entries (outbox stretch, payload), so the write list bounds {@link #pending} as well.
     */
    private boolean hasRoom() {
        int payload = job == JOB_SQ ? (sqWqe.opcode == SendOpcode.RDMA_READ ? 0 : nextPayload(sqWqe))
                : responsePayload(response);
        int copied = gathers(payload) ? 0 : payload;
        return outbox.capacity() - outbox.position() >= HEADER_MAX + copied + TRAILER_MAX
                && writeCount + entriesPerFpdu < writeList.length
                && gatheredBytes < BATCH_PAYLOAD_BYTES;
    }

    /**
     * Picks the job whose next FPDU goes out; false if there is nothing to send now. A message in progress is
     * finished first: DDP forbids interleaving two tagged messages (a Read Response inside a multi-segment Write is
     * a protocol error at the peer, siw_get_hdr); otherwise answers to Read Requests go first (siw_activate_tx).
     * Nothing here is on the wire yet: the FPDU is built only once there is room for it.
     */
    private boolean startJob() {
        if (job == JOB_SQ) {
            return startSendQueueJob();
        }
        if (job == JOB_READ_RESPONSE || tx.irqHead != qp.rxStream.irqTail) {
            return startReadResponse();
        }
        if (tx.sqHead != qp.sqTail) {
            return startSendQueueJob();
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
     * Writes the write list: one gathering write for everything that was ready at once (e.g. an RDMA Write and the
     * Send behind it, or a burst of responses); false if the socket did not take all of it. Once it did, the
     * outbox is empty again and the work requests whose payload was in it complete.
     */
    boolean flush(SocketChannel ch) throws IOException {
        closeChunk();
        if (writeFirst < writeCount) {
            socketWrites++;
            if (writeCount - writeFirst == 1) {
                ch.write(writeList[writeFirst]); // only copies (4 KiB I/O): the plain write path is shorter
            } else {
                ch.write(writeList, writeFirst, writeCount - writeFirst);
            }
            while (writeFirst < writeCount && !writeList[writeFirst].hasRemaining()) {
                writeList[writeFirst++] = null;
            }
            if (writeFirst < writeCount) {
                return false;
            }
        }
        outbox.clear();
        chunkStart = 0;
        writeFirst = 0;
        writeCount = 0;
        gatheredBytes = 0;
        int done = pendingCount;
        pendingCount = 0;
        for (int i = 0; i < done; i++) {
            SendWqe wqe = pending[i];
            pending[i] = null;
            qp.completeSend(wqe, WcStatus.SUCCESS, (int) wqe.totalLength, 0);
        }
        return true;
    }

    /** The outbox bytes assembled since the last entry become the next write list entry. */
    private void closeChunk() {
        int end = outbox.position();
        if (end > chunkStart) {
            ByteBuffer view = outboxViews[writeCount];
            view.clear().position(chunkStart).limit(end);
            writeList[writeCount++] = view;
            chunkStart = end;
        }
    }

    /**
     * The queue pair ended before these were on the wire: the work requests waiting for the write list complete
     * with {@code status} (siw_sq_flush), so their memory is the application's again and nothing more of the
     * list may be written.
     */
    void flushPending(WcStatus status) {
        int n = pendingCount;
        pendingCount = 0;
        for (int i = 0; i < n; i++) {
            SendWqe wqe = pending[i];
            pending[i] = null;
            qp.completeSend(wqe, status, 0, 0);
        }
    }

    /** Makes the WQE at the send queue's transmit head the current job; false to stop (stall or error). */
    private boolean startSendQueueJob() {
        SendWqe wqe = qp.sq[(int) (tx.sqHead % qp.sq.length)];
        if (job == JOB_SQ && sqWqe == wqe) {
            return true;
        }
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
        jobGathered = false;
        jobGatherable = true;
        for (int i = 0; i < wqe.numSge; i++) {
            if (wqe.length[i] != 0 && !wqe.regions[i].gatherable()) {
                jobGatherable = false;
            }
        }
        if (wqe.opcode == SendOpcode.SEND || wqe.opcode == SendOpcode.SEND_WITH_INVALIDATE) {
            sendMsn++;
        }
        return true;
    }

    /** Builds the next FPDU of the current send queue job; the caller made room for it. */
    private void buildFromSendQueue() {
        SendWqe wqe = sqWqe;
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

    private int responsePayload(ReadResponseWqe r) {
        return (int) Math.min(Integer.toUnsignedLong(r.readSize) - r.processed, qp.config.maxFpduPayload());
    }

    /**
     * Whether the current job's next FPDU, of {@code payload} bytes, leaves out of the registered memory (write
     * list entries) rather than copied into the outbox: the one rule both the build and {@link #hasRoom} follow.
     */
    private boolean gathers(int payload) {
        return payload > copyThreshold && jobGatherable;
    }

    /**
     * Lays out the FPDU: header, payload from the WQE's SG list (from the current position), pad and CRC. A payload
     * above the copy threshold from regions that gather stays in place (write list entries); any other is copied.
     */
    private void assemble(int headerLength, SendWqe wqe, int payload) {
        boolean gather = gathers(payload);
        int start = startFpdu(headerLength, gather);
        int position = start + headerLength;
        int remaining = payload;
        while (remaining > 0) {
            while (wqe.length[sgeIndex] == 0 || sgeOffset == Integer.toUnsignedLong(wqe.length[sgeIndex])) {
                sgeIndex++;
                sgeOffset = 0;
            }
            SoftiwarpMemoryRegion mr = wqe.regions[sgeIndex];
            int piece = (int) Math.min(remaining, Integer.toUnsignedLong(wqe.length[sgeIndex]) - sgeOffset);
            long offset = wqe.address[sgeIndex] - mr.address() + sgeOffset;
            if (gather) {
                addPayload(mr, offset, piece);
            } else {
                MemorySegment.copy(mr.segment(), offset, outboxSegment, position, piece);
                position += piece;
            }
            sgeOffset += piece;
            remaining -= piece;
        }
        jobPayload = payload;
        jobGathered |= gather;
        finishFpdu(start, headerLength, payload, gather);
    }

    /**
     * After the header was encoded into the staging buffer: copies it to the end of the outbox and returns where it
     * starts. For a gathered FPDU the outbox up to the end of the header becomes a write list entry, and the
     * payload entries follow it.
     */
    private int startFpdu(int headerLength, boolean gather) {
        int start = outbox.position();
        MemorySegment.copy(stagingSegment, 0, outboxSegment, start, headerLength);
        if (gather) {
            outbox.position(start + headerLength);
            closeChunk();
            fpduPayloadEntry = writeCount;
        }
        return start;
    }

    private void addPayload(SoftiwarpMemoryRegion mr, long offset, int length) {
        int slot = writeCount;
        ByteBuffer reuse = payloadRegions[slot] == mr ? payloadViews[slot] : null;
        ByteBuffer view = mr.view(reuse, offset, length);
        payloadViews[slot] = view;
        payloadRegions[slot] = mr;
        writeList[writeCount++] = view;
        gatheredBytes += length;
    }

    /**
     * Pad to 4 and CRC (RFC 5044 4.1, 4.4), computed over header, payload and pad. A copied FPDU is whole in the
     * outbox from {@code start}; a gathered one has its header there and its payload in the write list entries
     * after it, and its pad and CRC open the next stretch of the outbox.
     */
    private void finishFpdu(int start, int headerLength, int payload, boolean gathered) {
        int mpaLength = headerLength - DdpHeader.MPA_HEADER_LENGTH + payload;
        int pad = DdpHeader.padLength(mpaLength);
        int end = gathered ? start + headerLength : start + headerLength + payload;
        for (int i = 0; i < pad; i++) {
            outbox.put(end + i, (byte) 0);
        }
        int crcValue = 0;
        if (qp.crcEnabled) {
            crc.reset();
            if (gathered) {
                crc.update(outbox, start, headerLength);
                for (int i = fpduPayloadEntry; i < writeCount; i++) {
                    crc.update(writeList[i], writeList[i].position(), writeList[i].remaining());
                }
                crc.update(outbox, end, pad);
            } else {
                crc.update(outbox, start, end + pad - start);
            }
            crcValue = crc.wireValue();
        }
        outbox.putInt(end + pad, crcValue);
        outbox.position(end + pad + DdpHeader.MPA_CRC_LENGTH);
    }

    /** Bookkeeping once an FPDU is built: the next one continues from here. */
    private void fpduBuilt() {
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
                if (jobGathered) {
                    pending[pendingCount++] = wqe; // its memory is in the write list until the socket takes it
                } else {
                    qp.completeSend(wqe, WcStatus.SUCCESS, (int) wqe.totalLength, 0);
                }
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

    /**
     * Makes the IRQ head the current job, or checks a memory window again before its next segment; false if the
     * peer's Read is refused (siw_qp_sq_proc_tx for SIW_OP_READ_RESPONSE).
     */
    private boolean startReadResponse() {
        ReadResponseWqe r = qp.irq[(int) (tx.irqHead % qp.irq.length)];
        long size = Integer.toUnsignedLong(r.readSize);
        if (job != JOB_READ_RESPONSE || response != r) {
            job = JOB_READ_RESPONSE;
            response = r;
            r.processed = 0;
            r.source = null;
            r.sourceEntry = null;
            jobGatherable = false;
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
                jobGatherable = mr.gatherable();
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
        return true;
    }

    /** Builds the next Read Response FPDU of the current job; the caller made room for it. */
    private void buildReadResponse() {
        ReadResponseWqe r = response;
        long size = Integer.toUnsignedLong(r.readSize);
        int payload = responsePayload(r);
        boolean last = r.processed + payload == size;
        staging.clear();
        DdpTaggedHeader.encode(staging, RdmapOpcode.RDMA_READ_RESPONSE.code(), last, r.sinkStag,
                r.sinkTo + r.processed, payload);
        boolean gather = gathers(payload);
        int start = startFpdu(DdpTaggedHeader.LENGTH, gather);
        if (payload > 0) {
            long offset = r.sourceTo - r.source.address() + r.processed;
            if (gather) {
                addPayload(r.source, offset, payload);
            } else {
                MemorySegment.copy(r.source.segment(), offset, outboxSegment, start + DdpTaggedHeader.LENGTH,
                        payload);
            }
        }
        jobPayload = payload;
        finishFpdu(start, DdpTaggedHeader.LENGTH, payload, gather);
    }

    private boolean refuseRead(ReadResponseWqe r, MemoryCheck check) {
        job = JOB_NONE;
        response = null;
        qp.peerFault("peer RDMA Read of STag 0x" + Integer.toHexString(r.sourceStag) + " refused: " + check,
                TerminateTx.forReadRequest(r, check));
        return false;
    }

    /**
     * Before a Terminate (siw_send_terminate()): a Terminate must not split an FPDU, and a payload in the write list
     * from registered memory is the application's again once the work requests are flushed, so a list holding one
     * is written now, whole. False if the socket did not take it (nothing more is tried). A list of our own copies
     * only may go out later, before the Terminate ({@link #flush}).
     */
    boolean finishGathered(SocketChannel ch) throws IOException {
        return gatheredBytes == 0 || flush(ch);
    }
}
