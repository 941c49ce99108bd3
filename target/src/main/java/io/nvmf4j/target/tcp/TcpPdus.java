package io.nvmf4j.target.tcp;

import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.tcp.CapsulePdu;
import io.nvmf4j.protocol.tcp.DataPdu;
import io.nvmf4j.protocol.tcp.NegotiatedParameters;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.protocol.tcp.PduType;
import io.nvmf4j.protocol.tcp.TermReq;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * The PDUs a controller sends for one command, written into the request's own memory and set up as its gathering
 * write: the R2T for a write's data ({@code nvmet_tcp_setup_r2t_pdu()}), and a read's C2HData PDU followed by the
 * CapsuleResp ({@code nvmet_tcp_setup_c2h_data_pdu()}, {@code nvmet_setup_response_pdu()}), with the digests the
 * connection negotiated. Nothing allocated.
 */
final class TcpPdus {

    private TcpPdus() {
    }

    /** One R2T for all of the command's data (the host's MAXR2T is 0's based: one outstanding R2T is always allowed). */
    static void r2t(TcpRequest r, NegotiatedParameters n) {
        long plen = DataPdu.writeR2t(r.r2t, n, r.sqe.cid(), r.tag, 0, r.transferLength);
        if (n.headerDigest()) {
            headerDigest(r, r.r2t, r.r2tView, PduType.R2T);
        }
        r.txCount = 0;
        r.send(r.r2tView, 0, plen);
        r.txIsR2t = true;
    }

    /**
     * The response, after the read data when {@code dataOut}: one C2HData PDU with LAST_PDU for all of it, then the
     * CapsuleResp; with {@code success} the C2HData carries the SUCCESS flag and stands for the response, which is
     * not sent (nvmet_setup_c2h_data_pdu(): only on a queue whose host turned SQ flow control off, TP 8000's rule).
     */
    static void response(TcpRequest r, NegotiatedParameters n, boolean dataOut, boolean success) {
        r.txCount = 0;
        r.txIsR2t = false;
        if (dataOut) {
            int pdo = n.dataOffset(PduType.C2H_DATA);
            int flags = PduHeader.FLAG_LAST_PDU | (success ? PduHeader.FLAG_SUCCESS : 0);
            var _ = DataPdu.writeData(r.dataHeader, PduType.C2H_DATA, n, flags, r.sqe.cid(), 0, 0,
                    r.transferLength);
            if (n.headerDigest()) {
                headerDigest(r, r.dataHeader, r.dataHeaderView, PduType.C2H_DATA);
            }
            r.send(r.dataHeaderView, 0, pdo);
            r.send(r.block.view, 0, r.transferLength);
            if (n.dataDigest()) {
                Wire.u32(r.dataDigest, 0, Integer.toUnsignedLong(r.queue.digest.compute(r.block.view, 0,
                        r.transferLength)));
                r.send(r.dataDigestView, 0, PduHeader.DIGEST_LENGTH);
            }
            if (success) {
                return;
            }
        }
        long plen = CapsulePdu.writeResponseHeader(r.response, n);
        if (n.headerDigest()) {
            headerDigest(r, r.response, r.responseView, PduType.CAPSULE_RESP);
        }
        r.send(r.responseView, 0, plen);
    }

    /**
     * The most PLEN a controller takes of a PDU of {@code type}: a CapsuleCmd with {@code inlineDataSize} bytes of
     * in-capsule data, an H2CData of MAXH2CDATA, a TermReq quoting 128 bytes (what {@link PduHeader#check} holds
     * each received header to).
     */
    static long maxReceived(NegotiatedParameters n, int inlineDataSize, PduType type) {
        if (type == PduType.H2C_DATA) {
            return n.dataOffset(PduType.H2C_DATA) + n.maxH2cData() + n.dataDigestLength();
        }
        if (type == PduType.CAPSULE_CMD) {
            return inlineDataSize == 0 ? PduType.CAPSULE_CMD.headerLength() + n.headerDigestLength()
                    : n.dataOffset(PduType.CAPSULE_CMD) + inlineDataSize + n.dataDigestLength();
        }
        return TermReq.HEADER_LENGTH + TermReq.MAX_ERROR_DATA;
    }

    /** A once-per-connection PDU (ICResp, C2HTermReq) of {@code length} bytes, encoded into new memory. */
    static ByteBuffer encoded(int length, Consumer<MemorySegment> encoder) {
        ByteBuffer out = DataBlock.direct(length, 8);
        encoder.accept(MemorySegment.ofBuffer(out));
        return out;
    }

    /** The log line of an H2CTermReq the host ended the connection with. */
    static String describeTermReq(MemorySegment pdu) {
        try {
            TermReq t = TermReq.decode(pdu);
            return "host sent H2CTermReq " + t.status() + " FEI " + t.information();
        } catch (RuntimeException e) {
            return "host sent an H2CTermReq (" + e.getMessage() + ")";
        }
    }

    /** HDGST after the header of {@code type} in {@code pdu} (whose buffer view is {@code view}). */
    private static void headerDigest(TcpRequest r, MemorySegment pdu, ByteBuffer view, PduType type) {
        int length = type.headerLength();
        Wire.u32(pdu, length, Integer.toUnsignedLong(r.queue.digest.compute(view, 0, length)));
    }
}
