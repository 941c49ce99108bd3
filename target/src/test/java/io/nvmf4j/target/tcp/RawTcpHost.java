package io.nvmf4j.target.tcp;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.sgl.DataBlockDescriptor;
import io.nvmf4j.protocol.sgl.TransportSglDescriptor;
import io.nvmf4j.protocol.tcp.CapsulePdu;
import io.nvmf4j.protocol.tcp.DataPdu;
import io.nvmf4j.protocol.tcp.IcReq;
import io.nvmf4j.protocol.tcp.IcResp;
import io.nvmf4j.protocol.tcp.NegotiatedParameters;
import io.nvmf4j.protocol.tcp.PduDigest;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.protocol.tcp.PduType;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * A hand-written NVMe/TCP host for tests: a blocking socket, PDUs built and read with the protocol's
 * {@code io.nvmf4j.protocol.tcp} classes, one command at a time (and raw bytes for the hostile cases). It answers
 * each R2T with H2CData PDUs of at most {@link #h2cChunk} bytes, gathers C2HData, checks every digest the
 * connection negotiated, and reads waits bounded by {@link #TIMEOUT_MILLIS}.
 */
final class RawTcpHost implements AutoCloseable {

    static final int TIMEOUT_MILLIS = 10_000;
    static final byte[] HOST_ID = new byte[16];

    static {
        for (int i = 0; i < 16; i++) {
            HOST_ID[i] = (byte) (0xA0 + i);
        }
    }

    final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    NegotiatedParameters negotiated;
    /** The most data bytes per H2CData PDU this host sends (below MAXH2CDATA to make several). */
    int h2cChunk = 4096;
    private int nextCid = 1;
    /** R2Ts seen and H2CData PDUs sent by the last {@link #execute}. */
    int r2ts;
    int h2cPdus;
    int c2hPdus;
    /** C2HData PDUs with the SUCCESS flag (no CapsuleResp after them), over the host's life. */
    int successFlags;
    /** CATTR of this host's Connect: 0x04 turns SQ flow control off (TP 8005). */
    int connectCattr;

    RawTcpHost(InetSocketAddress address) throws IOException {
        socket = new Socket();
        socket.connect(address, TIMEOUT_MILLIS);
        socket.setSoTimeout(TIMEOUT_MILLIS);
        socket.setTcpNoDelay(true);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** A host on {@code address} that has exchanged ICReq/ICResp with the digests given. */
    static RawTcpHost initialized(InetSocketAddress address, boolean headerDigest, boolean dataDigest)
            throws IOException {
        RawTcpHost h = new RawTcpHost(address);
        h.icReq(IcReq.of(headerDigest, dataDigest));
        return h;
    }

    IcResp icReq(IcReq request) throws IOException {
        MemorySegment pdu = MemorySegment.ofArray(new byte[IcReq.LENGTH]);
        request.encode(pdu);
        send(pdu.toArray(ValueLayout.JAVA_BYTE));
        MemorySegment answer = readPdu(false);
        IcResp response = IcResp.decode(answer, request);
        negotiated = response.negotiated(request);
        return response;
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The next PDU, whole; digests checked when {@code checkDigests} and negotiated. */
    MemorySegment readPdu(boolean checkDigests) throws IOException {
        byte[] ch = new byte[PduHeader.LENGTH];
        in.readFully(ch);
        MemorySegment h = MemorySegment.ofArray(ch);
        long plen = PduHeader.length(h);
        if (plen < PduHeader.LENGTH || plen > (64 << 20)) {
            throw new IOException("PDU with PLEN " + plen);
        }
        byte[] all = new byte[(int) plen];
        System.arraycopy(ch, 0, all, 0, ch.length);
        in.readFully(all, ch.length, all.length - ch.length);
        MemorySegment pdu = MemorySegment.ofArray(all);
        PduType type = PduType.of(PduHeader.type(pdu));
        if (checkDigests && negotiated != null && type != PduType.C2H_TERM_REQ) {
            if (negotiated.headerDigest() && !PduDigest.matches(pdu, 0, type.headerLength())) {
                throw new IOException(type + " header digest wrong");
            }
            long dl = PduHeader.dataLength(pdu, negotiated);
            if (negotiated.dataDigest() && dl > 0) {
                int pdo = PduHeader.dataOffset(pdu);
                if (!PduDigest.matches(pdu, pdo, pdo + dl)) {
                    throw new IOException(type + " data digest wrong");
                }
            }
        }
        return pdu;
    }

    /** True when the target closed the connection (EOF) within the read timeout, after any PDUs it sent. */
    boolean closedByTarget() throws IOException {
        try {
            while (true) {
                var _ = readPdu(false);
            }
        } catch (EOFException e) {
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    // ---- commands ----

    SubmissionQueueEntry newSqe(int opcode) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        sqe.opcode(opcode).cid(nextCid++ & 0xFFFF).psdt(SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS);
        new TransportSglDescriptor(0, 0).encode(sqe.dptr());
        return sqe;
    }

    /** The CapsuleCmd PDU of {@code sqe} with {@code inCapsule} bytes behind it, digests as negotiated. */
    byte[] capsule(SubmissionQueueEntry sqe, byte[] inCapsule) {
        NegotiatedParameters n = negotiated;
        int data = inCapsule == null ? 0 : inCapsule.length;
        byte[] bytes = new byte[(n.dataOffset(PduType.CAPSULE_CMD) + data + n.dataDigestLength()
                + n.headerDigestLength() + 8)];
        MemorySegment pdu = MemorySegment.ofArray(bytes);
        long plen = CapsulePdu.writeCommandHeader(pdu, n, data);
        MemorySegment.copy(sqe.segment(), 0, pdu, CapsulePdu.OFFSET_ENTRY, SubmissionQueueEntry.SIZE);
        finishPdu(pdu, PduType.CAPSULE_CMD, data, inCapsule);
        return java.util.Arrays.copyOf(bytes, (int) plen);
    }

    /** Header digest, data and data digest of a PDU whose header is written. */
    private void finishPdu(MemorySegment pdu, PduType type, int data, byte[] bytes) {
        NegotiatedParameters n = negotiated;
        if (n.headerDigest()) {
            PduDigest.write(pdu, 0, type.headerLength());
        }
        if (data > 0) {
            int pdo = n.dataOffset(type);
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, pdu, pdo, data);
            if (n.dataDigest()) {
                PduDigest.write(pdu, pdo, pdo + data);
            }
        }
    }

    /** An H2CData PDU for {@code length} bytes of {@code data} at {@code offset}. */
    byte[] h2cData(int cid, int ttag, long offset, byte[] data, int from, int length, boolean last) {
        NegotiatedParameters n = negotiated;
        byte[] bytes = new byte[n.dataOffset(PduType.H2C_DATA) + length + n.dataDigestLength()];
        MemorySegment pdu = MemorySegment.ofArray(bytes);
        var _ = DataPdu.writeData(pdu, PduType.H2C_DATA, n, last ? PduHeader.FLAG_LAST_PDU : 0, cid, ttag, offset,
                length);
        finishPdu(pdu, PduType.H2C_DATA, length, java.util.Arrays.copyOfRange(data, from, from + length));
        return bytes;
    }

    /** A completed command: its CQE and the C2HData it brought. */
    record Response(CompletionQueueEntry cqe, byte[] data) {
        int status() {
            return cqe.statusField();
        }
    }

    /**
     * Sends {@code sqe} (with {@code inCapsule} data, or none) and runs it to its CapsuleResp: each R2T answered
     * from {@code writeData} in H2CData PDUs of {@link #h2cChunk} bytes, C2HData gathered.
     */
    Response execute(SubmissionQueueEntry sqe, byte[] inCapsule, byte[] writeData) throws IOException {
        r2ts = 0;
        h2cPdus = 0;
        c2hPdus = 0;
        send(capsule(sqe, inCapsule));
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        while (true) {
            MemorySegment pdu = readPdu(true);
            PduType type = PduType.of(PduHeader.type(pdu));
            switch (type) {
                case CAPSULE_RESP -> {
                    CompletionQueueEntry cqe = CompletionQueueEntry.allocate();
                    MemorySegment.copy(pdu, CapsulePdu.OFFSET_ENTRY, cqe.segment(), 0, CompletionQueueEntry.SIZE);
                    if (cqe.cid() != sqe.cid()) {
                        throw new IOException("CapsuleResp of CID " + cqe.cid() + " while waiting for " + sqe.cid());
                    }
                    return new Response(cqe, read.toByteArray());
                }
                case C2H_DATA -> {
                    c2hPdus++;
                    if (DataPdu.dataOffset(pdu) != read.size()) {
                        throw new IOException("C2HData at " + DataPdu.dataOffset(pdu) + " after " + read.size());
                    }
                    int pdo = PduHeader.dataOffset(pdu);
                    read.write(pdu.asSlice(pdo, DataPdu.dataLength(pdu)).toArray(ValueLayout.JAVA_BYTE));
                    int flags = PduHeader.flags(pdu);
                    if ((flags & PduHeader.FLAG_SUCCESS) != 0) {
                        // nvme_tcp_handle_c2h_data(): SUCCESS only with LAST_PDU; it stands for a zero CQE
                        if ((flags & PduHeader.FLAG_LAST_PDU) == 0) {
                            throw new IOException("C2HData with SUCCESS but not LAST_PDU");
                        }
                        successFlags++;
                        CompletionQueueEntry cqe = CompletionQueueEntry.allocate().cid(sqe.cid());
                        return new Response(cqe, read.toByteArray());
                    }
                }
                case R2T -> {
                    r2ts++;
                    int ttag = DataPdu.transferTag(pdu);
                    long at = DataPdu.dataOffset(pdu);
                    long end = at + DataPdu.dataLength(pdu);
                    while (at < end) {
                        int n = (int) Math.min(h2cChunk, end - at);
                        send(h2cData(sqe.cid(), ttag, at, writeData, (int) at, n, at + n == end));
                        h2cPdus++;
                        at += n;
                    }
                }
                default -> throw new IOException("unexpected " + type + " PDU");
            }
        }
    }

    /** Connect (7Fh/01h) with its 1024 bytes of data in the capsule, as Linux sends it. */
    Response connect(int qid, int sqsize, int cntlid, String subnqn, String hostnqn) throws IOException {
        SubmissionQueueEntry sqe = newSqe(0x7F);
        Wire.u8(sqe.segment(), 4, 0x01);
        Wire.u16(sqe.segment(), 42, qid);
        Wire.u16(sqe.segment(), 44, sqsize);
        Wire.u8(sqe.segment(), 46, connectCattr);
        byte[] data = new byte[1024];
        MemorySegment d = MemorySegment.ofArray(data);
        MemorySegment.copy(MemorySegment.ofArray(HOST_ID), 0, d, 0, 16);
        Wire.u16(d, 16, cntlid);
        Nqn.writeField(d.asSlice(256, 256), subnqn);
        Nqn.writeField(d.asSlice(512, 256), hostnqn);
        DataBlockDescriptor.inCapsule(0, 1024).encode(sqe.dptr());
        return execute(sqe, data, null);
    }

    Response propertySet(int offset, long value) throws IOException {
        SubmissionQueueEntry sqe = newSqe(0x7F);
        Wire.u8(sqe.segment(), 4, 0x00);
        Wire.u32(sqe.segment(), 44, offset);
        Wire.u64(sqe.segment(), 48, value);
        return execute(sqe, null, null);
    }

    /** Identify with CNS, 4096 bytes by C2HData. */
    Response identify(int cns, long nsid) throws IOException {
        SubmissionQueueEntry sqe = newSqe(0x06).nsid(nsid).cdw(10, cns);
        new TransportSglDescriptor(0, 4096).encode(sqe.dptr());
        return execute(sqe, null, null);
    }

    /** Read (02h) of {@code blocks} blocks of {@code blockSize} at {@code slba}. */
    Response read(long nsid, long slba, int blocks, int blockSize) throws IOException {
        SubmissionQueueEntry sqe = readWrite(0x02, nsid, slba, blocks);
        new TransportSglDescriptor(0, (long) blocks * blockSize).encode(sqe.dptr());
        return execute(sqe, null, null);
    }

    /** Write (01h) of {@code data} at {@code slba}: in the capsule, or through R2T and H2CData. */
    Response write(long nsid, long slba, int blockSize, byte[] data, boolean inCapsule) throws IOException {
        SubmissionQueueEntry sqe = readWrite(0x01, nsid, slba, data.length / blockSize);
        if (inCapsule) {
            DataBlockDescriptor.inCapsule(0, data.length).encode(sqe.dptr());
            return execute(sqe, data, null);
        }
        new TransportSglDescriptor(0, data.length).encode(sqe.dptr());
        return execute(sqe, null, data);
    }

    SubmissionQueueEntry readWrite(int opcode, long nsid, long slba, int blocks) {
        SubmissionQueueEntry sqe = newSqe(opcode).nsid(nsid);
        sqe.cdw(10, (int) slba).cdw(11, (int) (slba >>> 32)).cdw(12, blocks - 1);
        return sqe;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
