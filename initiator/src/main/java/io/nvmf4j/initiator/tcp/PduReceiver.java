package io.nvmf4j.initiator.tcp;

import io.nvmf4j.initiator.NvmeRequest;
import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.tcp.CapsulePdu;
import io.nvmf4j.protocol.tcp.DataPdu;
import io.nvmf4j.protocol.tcp.FatalErrorStatus;
import io.nvmf4j.protocol.tcp.NegotiatedParameters;
import io.nvmf4j.protocol.tcp.PduDigest;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.protocol.tcp.PduType;
import io.nvmf4j.protocol.tcp.TermCause;
import io.nvmf4j.protocol.tcp.TermReq;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The receive side of one NVMe/TCP connection, on the queue's poller: reads what the socket holds and walks it PDU
 * by PDU (Linux {@code nvme_tcp_recv_skb()}: header, then data, then data digest). The common header is checked
 * before anything else is read ({@link PduHeader#check}); a CapsuleResp completes its command
 * ({@code nvme_tcp_handle_comp()}), a C2HData is placed straight into the command's buffer once its CCCID, DATAO
 * and DATAL match what the command expects ({@code nvme_tcp_handle_c2h_data()}, {@code nvme_tcp_recv_data()}), with
 * the SUCCESS flag completing the command without a CapsuleResp, an R2T is answered with H2CData
 * ({@code nvme_tcp_handle_r2t()}), a C2HTermReq ends the connection. Buffers are preallocated per connection.
 */
final class PduReceiver {

    private static final int RECEIVE_BUFFER = 64 * 1024;
    /** The longest PDU header with digest and pad (PDO is one byte), and a whole TermReq. */
    private static final int HEADER_BUFFER = 512;
    private static final long MAX_PDU = 0xFFFF_FFFFL;

    private enum Phase { HEADER, DATA, DATA_DIGEST }

    private final TcpHostQueue queue;
    private final TcpConnection connection;
    private final NegotiatedParameters n;
    private final MemorySegment inSegment;
    private final ByteBuffer in;
    private final MemorySegment header;
    private final ByteBuffer headerDigestView;
    private final CompletionQueueEntry cqe;
    /** CRC32C of the header digests and of each piece of data as it arrives (the target's digest). */
    private final PduDigest digest = new PduDigest();

    private Phase phase = Phase.HEADER;
    private int headerHave;
    private int headerNeed = PduHeader.LENGTH;
    private TcpSlot dataSlot;
    private long dataLeft;
    private long dataAt;
    private long dataLength;
    private int dataFlags;
    private int digestHave;
    /** The digest of the current C2HData's data placed so far. */
    private int dataDigest;
    /** Commands completed by the last {@link #poll()}. */
    int completions;
    /** A scattering read's buffers: a command's data, then the receive buffer. */
    private final ByteBuffer[] scatter = new ByteBuffer[2];

    PduReceiver(TcpHostQueue queue, TcpConnection connection, Arena arena) {
        this.queue = queue;
        this.connection = connection;
        this.n = connection.negotiated;
        // a direct buffer of its own, not a view of the arena: a scattering read into buffers that view an arena
        // acquires its session per read, which allocates
        this.in = ByteBuffer.allocateDirect(RECEIVE_BUFFER);
        this.inSegment = MemorySegment.ofBuffer(in);
        this.header = arena.allocate(HEADER_BUFFER + 8, 8);
        this.headerDigestView = header.asByteBuffer();
        this.cqe = CompletionQueueEntry.wrap(header.asSlice(CapsulePdu.OFFSET_ENTRY, CompletionQueueEntry.SIZE));
    }

    /**
     * Reads and handles what the socket holds: bytes read (0: nothing there). In the middle of a C2HData whose
     * command's buffer has a direct view ({@link TcpSlot#dataView}), one scattering read puts the rest of its data
     * straight there and what follows into the receive buffer (Linux nvme_tcp_recv_data() copies the skb into the
     * request's pages, SPDK's nvme_tcp reads a PDU's data with readv into its iovecs): no copy of read data here.
     */
    int poll() throws IOException {
        completions = 0;
        int placed = 0;
        long read;
        if (phase == Phase.DATA && dataSlot.dataView != null) {
            ByteBuffer view = dataSlot.dataView;
            int at = (int) dataAt;
            view.clear().position(at).limit(at + (int) dataLeft);
            scatter[0] = view;
            scatter[1] = in;
            read = connection.read(scatter);
            placed = view.position() - at;
        } else {
            read = connection.read(in);
        }
        if (read < 0) {
            throw new EOFException("the controller closed the connection");
        }
        if (read == 0) {
            return 0;
        }
        // the capsules that the completions of this buffer submit leave in one write (TcpConnection#cork)
        Object sendLock = queue.sendLock();
        synchronized (sendLock) {
            connection.cork();
        }
        try {
            if (placed > 0) {
                dataPlaced(dataSlot.dataView, (int) dataAt, placed);
            }
            handleReceived();
        } catch (IOException | RuntimeException e) {
            synchronized (sendLock) {
                connection.discardCorked(); // the connection fails: what waits is sent again after a reconnect
            }
            throw e;
        }
        synchronized (sendLock) {
            connection.uncork(); // a failure here fails the connection, as one in the walk would
        }
        return (int) read;
    }

    /**
     * What {@link #poll()} does with the bytes it read, for bytes given instead, a receive buffer's worth at a time
     * (the fuzz target of the host's PDU parser feeds it so, without a socket).
     */
    void receive(MemorySegment bytes) throws IOException {
        completions = 0;
        for (long at = 0; at < bytes.byteSize(); ) {
            int n = (int) Math.min(RECEIVE_BUFFER, bytes.byteSize() - at);
            MemorySegment.copy(bytes, at, inSegment, 0, n);
            in.position(n);
            handleReceived();
            at += n;
        }
    }

    /** Walks the bytes the receive buffer holds, PDU by PDU, and empties it. */
    private void handleReceived() throws IOException {
        in.flip();
        while (in.hasRemaining()) {
            switch (phase) {
                case HEADER -> header();
                case DATA -> data();
                case DATA_DIGEST -> dataDigest();
            }
        }
        in.clear();
    }

    /** The header bytes of the current PDU, for the H2CTermReq that quotes it. */
    MemorySegment currentHeader() {
        return header.asSlice(0, Math.min(headerHave, HEADER_BUFFER));
    }

    private void header() throws IOException {
        int take = Math.min(headerNeed - headerHave, in.remaining());
        MemorySegment.copy(inSegment, in.position(), header, headerHave, take);
        in.position(in.position() + take);
        headerHave += take;
        if (headerHave < headerNeed) {
            return;
        }
        if (headerNeed == PduHeader.LENGTH) {
            TermCause bad = PduHeader.check(header, n, true, MAX_PDU);
            if (bad != null) {
                throw new PduException(bad, true);
            }
            int type = PduHeader.type(header);
            long plen = PduHeader.length(header);
            int headerEnd = PduHeader.headerLength(header) + n.headerDigestLength();
            if (type == PduType.C2H_TERM_REQ.code()) {
                // its fixed header only, as nvme_tcp_recv_pdu() reads it: the quoted PDU is not needed to end
                headerNeed = TermReq.HEADER_LENGTH;
            } else if (type == PduType.C2H_DATA.code() && plen > headerEnd) {
                headerNeed = PduHeader.dataOffset(header); // checked: at or after the header and its digest
            } else {
                // a PDU without data is PLEN long whatever its PDO says (nvme_tcp_recv_pdu() reads HLEN + HDGST)
                headerNeed = (int) plen;
            }
            if (headerNeed > HEADER_BUFFER) {
                throw PduException.field(PduHeader.OFFSET_PLEN, "PDU header of " + headerNeed + " bytes");
            }
            if (headerHave < headerNeed) {
                return;
            }
        }
        headerComplete();
    }

    private void headerComplete() throws IOException {
        int type = PduHeader.type(header);
        int hlen = PduHeader.headerLength(header);
        if (type != PduType.C2H_TERM_REQ.code() && n.headerDigest()) {
            if ((int) Wire.u32(header, hlen) != digest.compute(headerDigestView, 0, hlen)) {
                throw new PduException(new TermCause(FatalErrorStatus.HEADER_DIGEST_ERROR, 0,
                        "header digest mismatch"), true);
            }
        }
        // the header stays until the PDU is handled: an H2CTermReq for it quotes it
        if (type == PduType.CAPSULE_RESP.code()) {
            queue.onResponse(cqe.cid(), cqe.statusField(), cqe.result());
            nextPdu();
            completions++;
        } else if (type == PduType.C2H_DATA.code()) {
            startData();
        } else if (type == PduType.R2T.code()) {
            queue.onR2t(DataPdu.commandId(header), DataPdu.transferTag(header), DataPdu.dataOffset(header),
                    DataPdu.dataLength(header));
            nextPdu();
        } else if (type == PduType.C2H_TERM_REQ.code()) {
            throw controllerTermReq();
        } else {
            throw PduException.field(PduHeader.OFFSET_TYPE, "unexpected PDU type " + type);
        }
    }

    /**
     * A C2HTermReq: the connection ends without an answer (NVMe/TCP 1.0a, 3.6.2.3), and the controller's FES and
     * FEI are what the failure says (Linux {@code nvme_tcp_handle_c2h_term()}), a malformed one included.
     */
    private PduException controllerTermReq() {
        long plen = PduHeader.length(header);
        int code = Wire.u16(header, TermReq.OFFSET_FES);
        long fei = Wire.u32(header, TermReq.OFFSET_FEI);
        FatalErrorStatus fes = FatalErrorStatus.of(code);
        String reason;
        if (plen > TermReq.HEADER_LENGTH + TermReq.MAX_ERROR_DATA) {
            reason = "the controller ended the connection with a malformed C2HTermReq (PLEN " + plen + ")";
        } else {
            reason = "the controller ended the connection with a C2HTermReq: "
                    + (fes == null ? "reserved FES " + code : fes) + " (FEI " + fei + ")";
        }
        return new PduException(new TermCause(fes, fei, reason), false);
    }

    /** C2HData: checked against its command before a byte of data is placed. */
    private void startData() throws PduException {
        int cid = DataPdu.commandId(header);
        long offset = DataPdu.dataOffset(header);
        long length = DataPdu.dataLength(header);
        int flags = PduHeader.flags(header);
        TcpSlot slot = queue.activeSlot(cid);
        if (slot == null) {
            throw PduException.field(DataPdu.OFFSET_CCCID, "C2HData for command id " + cid + ", not outstanding");
        }
        if (slot.request.direction() != NvmeRequest.Direction.CONTROLLER_TO_HOST) {
            throw PduException.field(DataPdu.OFFSET_CCCID, "C2HData for command id " + cid
                    + ", which reads no data");
        }
        if (length == 0 || PduHeader.dataLength(header, n) <= 0) {
            // no data to place: Linux nvme_tcp_handle_c2h_data() takes only a PDU that carries some
            throw PduException.field(DataPdu.OFFSET_LENGTH, "C2HData without data (DATAL " + length + ", PLEN "
                    + PduHeader.length(header) + ")");
        }
        if (length != PduHeader.dataLength(header, n)) {
            throw PduException.field(DataPdu.OFFSET_LENGTH, "C2HData DATAL " + length + " but "
                    + PduHeader.dataLength(header, n) + " bytes of PDU data");
        }
        if (offset != slot.received || offset + length > slot.length) {
            throw PduException.outOfRange("C2HData DATAO " + offset + " DATAL " + length + " for command id "
                    + cid + " (" + slot.received + " of " + slot.length + " bytes received)");
        }
        if ((flags & PduHeader.FLAG_SUCCESS) != 0 && (flags & PduHeader.FLAG_LAST_PDU) == 0) {
            throw PduException.field(PduHeader.OFFSET_FLAGS, "C2HData with SUCCESS but not LAST_PDU");
        }
        dataSlot = slot;
        dataLeft = length;
        dataLength = length;
        dataAt = slot.dataOffset + offset;
        dataFlags = flags;
        dataDigest = 0; // the digest of no bytes
        phase = Phase.DATA;
    }

    private void data() throws IOException {
        int pos = in.position();
        int chunk = (int) Math.min(dataLeft, in.remaining());
        MemorySegment.copy(inSegment, pos, dataSlot.data, dataAt, chunk);
        in.position(pos + chunk);
        dataPlaced(in, pos, chunk);
    }

    /** {@code chunk} bytes of the current C2HData's data are in place; they lie in {@code where} at {@code pos}. */
    private void dataPlaced(ByteBuffer where, int pos, int chunk) throws IOException {
        if (n.dataDigest()) {
            // the data comes in as many pieces as reads: each digested where it lies, the digests joined
            dataDigest = DigestCombine.combine(dataDigest, digest.compute(where, pos, chunk), chunk);
        }
        dataAt += chunk;
        dataLeft -= chunk;
        if (dataLeft == 0) {
            if (n.dataDigest()) {
                digestHave = 0;
                phase = Phase.DATA_DIGEST;
            } else {
                dataDone();
            }
        }
    }

    private void dataDigest() throws IOException {
        int take = Math.min(PduHeader.DIGEST_LENGTH - digestHave, in.remaining());
        MemorySegment.copy(inSegment, in.position(), header, HEADER_BUFFER + digestHave, take);
        in.position(in.position() + take);
        digestHave += take;
        if (digestHave == PduHeader.DIGEST_LENGTH) {
            if ((int) Wire.u32(header, HEADER_BUFFER) != dataDigest) {
                // Linux nvme_tcp_recv_ddgst() fails the command; here the connection, and the command is retried
                throw new IOException("data digest mismatch in C2HData for command id " + dataSlot.cid);
            }
            dataDone();
        }
    }

    private void dataDone() throws IOException {
        TcpSlot slot = dataSlot;
        slot.received += dataLength;
        dataSlot = null;
        nextPdu();
        if ((dataFlags & PduHeader.FLAG_SUCCESS) != 0) {
            queue.onResponse(slot.cid, 0, 0);
            completions++;
        }
    }

    private void nextPdu() {
        phase = Phase.HEADER;
        headerHave = 0;
        headerNeed = PduHeader.LENGTH;
    }
}
