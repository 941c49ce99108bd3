package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.softiwarp.ddp.DdpTaggedHeader;
import io.nvmf4j.verbs.softiwarp.ddp.DdpUntaggedHeader;
import io.nvmf4j.verbs.softiwarp.rdmap.RdmapOpcode;
import io.nvmf4j.verbs.softiwarp.rdmap.ReadRequestHeader;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateCodes;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateMessage;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The RDMAP side of reception (siw_proc_send(), siw_proc_write(), siw_proc_rresp(), siw_proc_rreq(),
 * siw_rdmap_complete() of Linux siw_qp_rx.c): per opcode, the checks of a new FPDU against the message in progress
 * (tagged: RDMA Write, Read Response - siw rx_tagged; untagged: Send, Read Request - siw rx_untagged), where its
 * payload is placed in registered memory (DDP placement, only after every check passed), and what the last FPDU of
 * a message completes. The {@link Receiver} frames the FPDUs (header, payload, trailer, CRC) and calls in here.
 * Runs on the receiving thread only.
 */
final class RdmapReceive {
    private final Receiver rx;
    private final SoftiwarpQueuePair qp;
    private static final int VIEW_CACHE = 4;

    /**
     * Views of the regions payload recently went to, reused (a host alternates between its response buffers and
     * its data pool: one cached view would be duplicated, i.e. allocated, at every switch).
     */
    private final ByteBuffer[] views = new ByteBuffer[VIEW_CACHE];
    private final SoftiwarpMemoryRegion[] viewRegions = new SoftiwarpMemoryRegion[VIEW_CACHE];
    private int nextView;

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

    RdmapReceive(Receiver rx, SoftiwarpQueuePair qp) {
        this.rx = rx;
        this.qp = qp;
        this.sendRegions = new SoftiwarpMemoryRegion[qp.attributes().maxRecvSge()];
    }

    /** siw_get_hdr(): a continuation must be of the message in progress of its kind. */
    boolean continues(RdmapOpcode opcode) {
        return !(opcode.tagged() ? taggedMore && taggedOpcode != opcode.code()
                : untaggedMore && untaggedOpcode != opcode.code() && opcode != RdmapOpcode.TERMINATE);
    }

    /** Checks a new FPDU's RDMAP header against the message in progress and prepares its placement. */
    boolean prepare(RdmapOpcode opcode, boolean last) {
        boolean ok = switch (opcode) {
            case RDMA_WRITE -> prepareWrite();
            case RDMA_READ_RESPONSE -> prepareReadResponse(last);
            case SEND, SEND_WITH_INVALIDATE, SEND_WITH_SOLICITED_EVENT,
                 SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE -> prepareSend();
            case RDMA_READ_REQUEST -> prepareReadRequest();
            case TERMINATE -> throw new IllegalArgumentException("a Terminate is framed by the receiver");
        };
        if (!ok) {
            return false;
        }
        if (opcode.tagged()) {
            taggedOpcode = opcode.code();
            taggedMore = !last;
        } else if (opcode != RdmapOpcode.RDMA_READ_REQUEST) {
            untaggedOpcode = opcode.code();
            untaggedMore = !last;
        }
        return true;
    }

    /** siw_proc_write + siw_write_check_ntoh. */
    private boolean prepareWrite() {
        int stag = DdpTaggedHeader.stag(rx.header);
        long to = DdpTaggedHeader.taggedOffset(rx.header);
        if (!taggedMore) {
            taggedStag = stag;
            taggedTo = to;
            writeRegion = null;
        } else if (stag != taggedStag) {
            return rx.failTagged(TerminateCodes.DDP_ECODE_T_INVALID_STAG);
        } else if (to != taggedTo) {
            return rx.failTagged(TerminateCodes.DDP_ECODE_T_BASE_BOUNDS);
        }
        if (rx.payloadLength == 0) {
            return true; // zero-length Write (e.g. the RFC 6581 RTR): no STag check, as siw
        }
        // every segment is checked, a continuation too: a window invalidated or rebound by its owner while a
        // multi-segment Write arrives takes no more bytes from the next segment on
        StagEntry entry = qp.device.stagTable().lookup(stag);
        if (entry == null) {
            return rx.failTagged(TerminateCodes.DDP_ECODE_T_INVALID_STAG);
        }
        SoftiwarpMemoryRegion mr = entry.target();
        MemoryCheck check = entry.checkRemote(stag, qp.pd, false, true, to, rx.payloadLength, mr);
        if (check != MemoryCheck.OK) {
            return rx.failTagged(check.ddpTaggedCode());
        }
        writeRegion = mr;
        return true;
    }

    /** siw_proc_rresp + siw_rresp_check_ntoh: the response must match our oldest outstanding Read exactly. */
    private boolean prepareReadResponse(boolean last) {
        if (!taggedMore) {
            readWqe = qp.peekRead();
            if (readWqe == null) {
                return rx.fail(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC,
                        TerminateCodes.DDP_ECODE_CATASTROPHIC);
            }
            readSgeIndex = 0;
            readSgeOffset = 0;
            taggedStag = readWqe.numSge > 0 ? readWqe.lkey[0] : 0;
            taggedTo = readWqe.numSge > 0 ? readWqe.address[0] : 0;
        }
        SendWqe wqe = readWqe;
        int stag = DdpTaggedHeader.stag(rx.header);
        long to = DdpTaggedHeader.taggedOffset(rx.header);
        if (stag != taggedStag) {
            return rx.failTagged(TerminateCodes.DDP_ECODE_T_INVALID_STAG);
        }
        if (to != taggedTo + wqe.processed || wqe.processed + rx.payloadLength > wqe.totalLength
                || (last && wqe.processed + rx.payloadLength != wqe.totalLength)) {
            return rx.failTagged(TerminateCodes.DDP_ECODE_T_BASE_BOUNDS);
        }
        return true;
    }

    /** siw_proc_send + siw_send_check_ntoh. */
    private boolean prepareSend() {
        if (DdpUntaggedHeader.queueNumber(rx.header) != DdpUntaggedHeader.QN_SEND) {
            return rx.failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_QN);
        }
        if (DdpUntaggedHeader.msn(rx.header) != expectedSendMsn) {
            return rx.failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_MSN_RANGE);
        }
        if (!untaggedMore) {
            rqe = qp.peekReceive();
            if (rqe == null) {
                return rx.failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_MSN_NOBUF);
            }
            sendProcessed = 0;
            sendSgeIndex = 0;
            sendSgeOffset = 0;
            Arrays.fill(sendRegions, null);
        }
        if (Integer.toUnsignedLong(DdpUntaggedHeader.messageOffset(rx.header)) != sendProcessed) {
            return rx.failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_MO);
        }
        if (sendProcessed + rx.payloadLength > rqe.totalLength) {
            ReceiveWqe r = rqe;
            // the Terminate is recorded before the completion is visible (siw_init_terminate first)
            rx.initTerminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_UNTAGGED_BUF,
                    TerminateCodes.DDP_ECODE_UT_INVALID_MSN_NOBUF);
            qp.completeReceive(r, WcStatus.LOC_LEN_ERR, 0, false, 0);
            return rx.failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_MSN_NOBUF);
        }
        return true;
    }

    /** Inbound RDMA Read Request (siw_proc_rreq / siw_init_rresp checks). */
    private boolean prepareReadRequest() {
        if (DdpUntaggedHeader.queueNumber(rx.header) != DdpUntaggedHeader.QN_READ_REQUEST) {
            return rx.failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_QN);
        }
        if (DdpUntaggedHeader.msn(rx.header) != expectedReadMsn) {
            return rx.failUntagged(TerminateCodes.DDP_ECODE_UT_INVALID_MSN_RANGE);
        }
        if (rx.payloadLength != 0) {
            // "Inbound RREQ's cannot carry user data" (siw_proc_rreq)
            return rx.fail(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC,
                    TerminateCodes.DDP_ECODE_CATASTROPHIC);
        }
        return true;
    }

    /** The view of registered memory the next payload bytes go to. */
    ByteBuffer nextPiece() {
        int remaining = rx.payloadLength - rx.payloadReceived;
        switch (rx.opcode) {
            case RDMA_WRITE -> {
                SoftiwarpMemoryRegion mr = writeRegion;
                long offset = taggedTo + rx.payloadReceived - mr.address();
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
                    rx.initTerminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_TAGGED_BUF,
                            check.ddpTaggedCode());
                    qp.completeRead(wqe, WcStatus.LOC_PROT_ERR, 0);
                    rx.failTagged(check.ddpTaggedCode());
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
                    rx.initTerminate(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC,
                            TerminateCodes.DDP_ECODE_CATASTROPHIC);
                    qp.completeReceive(r, WcStatus.LOC_PROT_ERR, 0, false, 0);
                    rx.fail(TerminateCodes.LAYER_DDP, TerminateCodes.DDP_ETYPE_CATASTROPHIC,
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

    void advance(int n) {
        switch (rx.opcode) {
            case RDMA_READ_RESPONSE -> readSgeOffset += n;
            case RDMA_WRITE -> {
            }
            default -> sendSgeOffset += n;
        }
    }

    private void completeSend() {
        expectedSendMsn++;
        ReceiveWqe r = rqe;
        rqe = null;
        if (rx.opcode == RdmapOpcode.SEND_WITH_INVALIDATE || rx.opcode == RdmapOpcode.SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE) {
            int stag = DdpUntaggedHeader.ulpReserved(rx.header);
            StagEntry entry = qp.device.stagTable().lookup(stag);
            // siw_invalidate_stag() + siw_rdmap_complete(): an STag that names nothing is a remote operation error,
            // one the peer may not invalidate (a registered region - never remotely invalidatable - or a window
            // of another PD) a remote protection error, both "STag cannot be invalidated" (RFC 5040 4.8). The
            // Terminate ends this connection only; the memory stays valid for its owner and every other peer.
            int outcome = entry == null ? StagEntry.INVALIDATE_UNKNOWN : entry.remoteInvalidate(stag, qp.pd);
            if (outcome != StagEntry.INVALIDATED) {
                int etype = outcome == StagEntry.INVALIDATE_REFUSED ? TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION
                        : TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION;
                // siw_init_terminate() before siw_rqe_complete(): the NVMe target disconnects as soon as it sees
                // REM_INV_REQ_ERR, and that disconnect must send this Terminate, not close without it
                rx.initTerminate(TerminateCodes.LAYER_RDMAP, etype, TerminateCodes.RDMAP_ECODE_CANNOT_INVALIDATE);
                qp.completeReceive(r, WcStatus.REM_INV_REQ_ERR, (int) sendProcessed, false, 0);
                rx.fail(TerminateCodes.LAYER_RDMAP, etype, TerminateCodes.RDMAP_ECODE_CANNOT_INVALIDATE);
                return;
            }
            qp.completeReceive(r, WcStatus.SUCCESS, (int) sendProcessed, true, stag);
        } else {
            qp.completeReceive(r, WcStatus.SUCCESS, (int) sendProcessed, false, 0);
        }
    }

    /** siw_init_rresp(): queue the answer; IRD exceeded is an RDMAP catastrophic stream error. */
    private void queueReadResponse() {
        RxStream stream = qp.rxStream;
        if (stream.irqTail - qp.txContext.irqHead >= qp.irq.length) {
            rx.fail(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_OPERATION,
                    TerminateCodes.RDMAP_ECODE_CATASTROPHIC_STREAM);
            return;
        }
        ReadResponseWqe r = qp.irq[(int) (stream.irqTail % qp.irq.length)];
        r.sinkStag = ReadRequestHeader.sinkStag(rx.header);
        r.sinkTo = ReadRequestHeader.sinkTo(rx.header);
        r.readSize = ReadRequestHeader.readSize(rx.header);
        r.sourceStag = ReadRequestHeader.sourceStag(rx.header);
        r.sourceTo = ReadRequestHeader.sourceTo(rx.header);
        r.msn = expectedReadMsn;
        r.processed = 0;
        expectedReadMsn++;
        stream.irqTail++;
        qp.kickTx();
    }

    private void terminateReceived() {
        int end = Math.min(rx.header.capacity(), rx.headerLength + rx.payloadLength);
        TerminateMessage t = TerminateMessage.decode(rx.header, end);
        boolean bogus = DdpUntaggedHeader.queueNumber(rx.header) != DdpUntaggedHeader.QN_TERMINATE
                || DdpUntaggedHeader.msn(rx.header) != expectedTerminateMsn
                || DdpUntaggedHeader.messageOffset(rx.header) != 0;
        SendWqe read = qp.peekRead();
        if (read != null) {
            qp.completeRead(read, statusFor(t), t.packed());
        }
        qp.enterError(DisconnectEvent.Cause.TERMINATE_RECEIVED,
                "peer sent Terminate: " + t.describe() + (bogus ? " (with bogus QN/MSN/MO)" : ""), null);
    }

    /** The local status of our oldest outstanding Read when the peer terminates. */
    private static WcStatus statusFor(TerminateMessage t) {
        if ((t.layer() == TerminateCodes.LAYER_DDP && t.errorType() == TerminateCodes.DDP_ETYPE_TAGGED_BUF)
                || (t.layer() == TerminateCodes.LAYER_RDMAP
                && t.errorType() == TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION)) {
            return WcStatus.REM_ACCESS_ERR;
        }
        if (t.layer() == TerminateCodes.LAYER_DDP && t.errorType() == TerminateCodes.DDP_ETYPE_UNTAGGED_BUF) {
            return WcStatus.REM_INV_REQ_ERR;
        }
        return WcStatus.REM_OP_ERR;
    }

    /**
     * siw_rdmap_complete(): the last byte of an FPDU is in and its CRC checked. False if the FPDU was the peer's
     * Terminate (the queue pair ended).
     */
    boolean complete(boolean last) {
        switch (rx.opcode) {
            case RDMA_WRITE -> taggedTo += rx.payloadLength;
            case RDMA_READ_RESPONSE -> {
                SendWqe wqe = readWqe;
                wqe.processed += rx.payloadLength;
                if (last) {
                    readWqe = null;
                    qp.completeRead(wqe, WcStatus.SUCCESS, 0);
                    qp.kickTx(); // the ORQ has room again
                }
            }
            case SEND, SEND_WITH_INVALIDATE, SEND_WITH_SOLICITED_EVENT, SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE -> {
                sendProcessed += rx.payloadLength;
                if (last) {
                    completeSend();
                }
            }
            case RDMA_READ_REQUEST -> queueReadResponse();
            case TERMINATE -> {
                terminateReceived();
                return false;
            }
        }
        return true;
    }
}
