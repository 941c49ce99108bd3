package io.nvmf4j.hostile;

import io.nvmf4j.hostile.DdpRdmapFrames.Segment;
import io.nvmf4j.hostile.NvmeCapsules.Completion;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * An NVMe/RDMA host made of raw frames (NVMe-oF 1.1 section 7.3, RDMA transport): MPA setup with the RDMA_CM private
 * data, command capsules sent by RDMA Send (RFC 5040 5.3), "registered memory" that is a map from our own invented
 * STags to byte arrays, served to the target's RDMA Read Requests (RFC 5040 4.4/4.5) and written by its RDMA Writes.
 * It can also break every rule: Send with Invalidate of any STag, Reads and Writes of guessed STags, Read Requests left
 * unanswered.
 */
final class RawHost implements AutoCloseable {

    /** Our STags: any 32-bit value; the target only echoes them (RFC 5040 6.4). */
    static final int CONNECT_DATA_STAG = 0x7e570001;
    static final int DATA_STAG = 0x7e570002;

    final MpaPeer mpa;
    final MpaPeer.Reply reply;
    private int sendMsn = 1;
    private int readMsn = 1;
    private int cid = 1;
    private final Map<Integer, byte[]> memory = new HashMap<>();
    /** Answer the target's Read Requests from {@link #memory} (false: leave them hanging). */
    boolean answerReads = true;
    final List<Segment> readRequests = new ArrayList<>();
    final List<Segment> readResponses = new ArrayList<>();
    /** Every byte the target RDMA-wrote to us (bounded). */
    final ByteArrayOutputStream written = new ByteArrayOutputStream();
    int writesOutsideOurBuffers;

    /** The connection ended with a Terminate from the target (RFC 5040 4.8). */
    static final class Terminated extends IOException {
        private static final long serialVersionUID = 1L;
        final transient Segment terminate;

        Terminated(Segment t) {
            super("target sent " + t);
            this.terminate = t;
        }
    }

    /** The target refused the RDMA_CM request (MPA reject carrying RDMA_CM_REJECT private data). */
    static final class CmRejected extends IOException {
        private static final long serialVersionUID = 1L;
        final int status;

        CmRejected(int status) {
            super("RDMA_CM_REJECT with status " + status);
            this.status = status;
        }
    }

    private RawHost(MpaPeer mpa, MpaPeer.Reply reply) {
        this.mpa = mpa;
        this.reply = reply;
    }

    /** TCP, MPA with CRC and IRD/ORD 16, RDMA_CM request for {@code qid}; the target's accept read. */
    static RawHost open(InetSocketAddress target, int qid, int hrqsize, int hsqsize) throws IOException {
        return open(target, NvmeCapsules.cmRequest(qid, hrqsize, hsqsize));
    }

    /** How long any read waits for the target (the attacker process shortens it). */
    static volatile Duration readTimeout = Duration.ofSeconds(10);

    static RawHost open(InetSocketAddress target, byte[] cmPrivateData) throws IOException {
        MpaPeer mpa = MpaPeer.open(target, readTimeout);
        try {
            MpaPeer.Reply r = mpa.negotiate(16, 16, true, cmPrivateData);
            if (r.rejected()) {
                throw new CmRejected(NvmeCapsules.cmWord(r.applicationData(), 1));
            }
            return new RawHost(mpa, r);
        } catch (IOException | RuntimeException e) {
            mpa.close();
            throw e;
        }
    }

    /** An admin queue (NVMe-oF 1.1: 32 entries, as Linux NVME_AQ_DEPTH). */
    static RawHost admin(InetSocketAddress target) throws IOException {
        return open(target, 0, 32, 31);
    }

    /**
     * An I/O queue of {@code entries} entries on controller {@code cntlid}, connected (NVMe-oF 1.1 3.3: CNTLID in the
     * Connect data names the controller, the host NQN must match the admin queue's).
     */
    static RawHost ioQueue(InetSocketAddress target, String subnqn, int cntlid, UUID hostId, int entries)
            throws IOException {
        RawHost q = open(target, 1, entries, entries - 1);
        try {
            Completion c = q.connect(1, entries - 1, subnqn, hostId, cntlid);
            if (!c.success()) {
                throw new IOException("I/O queue Connect refused: " + c);
            }
            return q;
        } catch (IOException | RuntimeException e) {
            q.close();
            throw e;
        }
    }

    int nextCid() {
        return cid++ & 0xffff;
    }

    void register(int stag, byte[] buffer) {
        memory.put(stag, buffer);
    }

    byte[] buffer(int stag) {
        return memory.get(stag);
    }

    // ---- what we send ----

    void send(byte[] capsule) throws IOException {
        mpa.sendUlpdu(DdpRdmapFrames.untagged(DdpRdmapFrames.SEND, true, 0, DdpRdmapFrames.QN_SEND, sendMsn++, 0,
                capsule));
    }

    /** RFC 5040 4.3: a Send with Invalidate naming {@code stag} (an STag of the target's, guessed). */
    void sendWithInvalidate(byte[] capsule, int stag) throws IOException {
        mpa.sendUlpdu(DdpRdmapFrames.untagged(DdpRdmapFrames.SEND_WITH_INVALIDATE, true, stag,
                DdpRdmapFrames.QN_SEND, sendMsn++, 0, capsule));
    }

    /** RFC 5040 4.4: an RDMA Read Request of the target's memory at a guessed STag. */
    void readRequest(int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) throws IOException {
        mpa.sendUlpdu(DdpRdmapFrames.untagged(DdpRdmapFrames.RDMA_READ_REQUEST, true, 0,
                DdpRdmapFrames.QN_READ_REQUEST, readMsn++, 0,
                DdpRdmapFrames.readRequestBody(sinkStag, sinkTo, size, sourceStag, sourceTo)));
    }

    /** RFC 5040 4.1: an RDMA Write into the target's memory at a guessed STag. */
    void rdmaWrite(int stag, long to, byte[] data) throws IOException {
        mpa.sendUlpdu(DdpRdmapFrames.tagged(DdpRdmapFrames.RDMA_WRITE, true, stag, to, data, 0, data.length));
    }

    /** The capsule, then its completion (serving Read Requests and taking Writes meanwhile). */
    Completion command(byte[] capsule) throws IOException {
        int id = java.nio.ByteBuffer.wrap(capsule).order(java.nio.ByteOrder.LITTLE_ENDIAN).getShort(2) & 0xffff;
        send(capsule);
        return awaitCompletion(id);
    }

    Completion awaitCompletion(int id) throws IOException {
        while (true) {
            Segment s = next();
            if ((s.opcode() >= DdpRdmapFrames.SEND && s.opcode() <= DdpRdmapFrames.SEND_WITH_SE_AND_INVALIDATE)
                    && s.payload().length >= 16) {
                Completion c = Completion.decode(s.payload());
                if (c.cid() == id) {
                    return c;
                }
            }
        }
    }

    /** Reads one segment and does what a host does with it; a Terminate ends the connection with an exception. */
    Segment next() throws IOException {
        Segment s = DdpRdmapFrames.decode(mpa.readUlpdu());
        switch (s.opcode()) {
            case DdpRdmapFrames.RDMA_READ_REQUEST -> {
                readRequests.add(s);
                if (answerReads) {
                    answer(s);
                }
            }
            case DdpRdmapFrames.RDMA_WRITE -> take(s);
            case DdpRdmapFrames.RDMA_READ_RESPONSE -> readResponses.add(s);
            case DdpRdmapFrames.TERMINATE -> throw new Terminated(s);
            default -> {
                // Sends: the caller looks at them
            }
        }
        return s;
    }

    private void take(Segment s) {
        if (written.size() < (64 << 20)) {
            written.writeBytes(s.payload());
        }
        byte[] buf = memory.get(s.stag());
        if (buf == null || s.to() < 0 || s.to() + s.payload().length > buf.length) {
            writesOutsideOurBuffers++;
            return;
        }
        System.arraycopy(s.payload(), 0, buf, (int) s.to(), s.payload().length);
    }

    /** RFC 5040 4.5: Read Response segments (at most 16 KiB each), L on the last. */
    private void answer(Segment req) throws IOException {
        byte[] buf = memory.get(req.sourceStag());
        long size = Integer.toUnsignedLong(req.readSize());
        if (buf == null || req.sourceTo() < 0 || req.sourceTo() + size > buf.length) {
            return; // not ours: a real RNIC would Terminate; we just stay silent
        }
        int off = 0;
        do {
            int n = (int) Math.min(16384, size - off);
            boolean last = off + n == size;
            mpa.sendUlpdu(DdpRdmapFrames.tagged(DdpRdmapFrames.RDMA_READ_RESPONSE, last, req.sinkStag(),
                    req.sinkTo() + off, buf, (int) req.sourceTo() + off, n));
            off += n;
        } while (off < size);
    }

    // ---- NVMe-oF conversations ----

    /** NVMe-oF 1.1 3.3: Connect with its 1024 bytes of data behind a keyed SGL that the target RDMA-reads. */
    Completion connect(int qid, int sqsize, String subnqn, UUID hostId, int cntlid) throws IOException {
        return connect(qid, sqsize, subnqn, hostId, cntlid, 120_000);
    }

    /** As above with KATO {@code katoMillis} (0: no keep-alive, the controller lives as long as the queue). */
    Completion connect(int qid, int sqsize, String subnqn, UUID hostId, int cntlid, int katoMillis)
            throws IOException {
        register(CONNECT_DATA_STAG, ConnectData.of(hostId, cntlid, subnqn, ConnectData.randomHostNqn(hostId)));
        return command(NvmeCapsules.connect(nextCid(), qid, sqsize, katoMillis,
                NvmeCapsules.keyedSgl(0, ConnectData.SIZE, CONNECT_DATA_STAG, false)));
    }

    /** The host ID this queue's admin Connect used (I/O queues must present the same host). */
    UUID hostId = UUID.randomUUID();

    Completion adminConnect(String subnqn) throws IOException {
        return connect(0, 31, subnqn, hostId, ConnectData.DYNAMIC_CNTLID);
    }

    /** Reads and handles segments for {@code wait}, returning early if the target closes or terminates. */
    void drain(Duration wait) throws IOException {
        mpa.readTimeout(wait);
        try {
            long deadline = System.nanoTime() + wait.toNanos();
            while (System.nanoTime() - deadline < 0) {
                next();
            }
        } catch (java.net.SocketTimeoutException quiet) {
            // nothing more within the wait
        } finally {
            mpa.readTimeout(readTimeout);
        }
    }

    Completion propertyGet(int offset, boolean eightBytes) throws IOException {
        return command(NvmeCapsules.propertyGet(nextCid(), offset, eightBytes));
    }

    /** Admin connect, CC.EN = 1, wait for CSTS.RDY (NVMe Base 3.5.1 controller initialization). */
    Completion connectAndEnable(String subnqn) throws IOException {
        Completion c = adminConnect(subnqn);
        if (!c.success()) {
            return c;
        }
        Completion set = command(NvmeCapsules.propertySet(nextCid(), NvmeCapsules.PROP_CC, false,
                NvmeCapsules.CC_ENABLE));
        if (!set.success()) {
            return set;
        }
        for (int i = 0; i < 100; i++) {
            if ((propertyGet(NvmeCapsules.PROP_CSTS, false).dw0() & 1) != 0) {
                return c;
            }
        }
        throw new IOException("CSTS.RDY never set");
    }

    @Override
    public void close() {
        mpa.close();
    }
}
