package io.nvmf4j.target.rdma;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.rdma.RdmaCmAccept;
import io.nvmf4j.protocol.rdma.RdmaCmRequest;
import io.nvmf4j.protocol.sgl.DataBlockDescriptor;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * A scripted NVMe-oF RDMA host built from {@code protocol} and the verbs API only (not the initiator): one queue
 * pair over its own softiwarp device, command capsules built by their spec offsets, responses read from its own
 * receive buffers. One command at a time unless a test posts several itself. Every wait is bounded.
 */
final class ScriptedRdmaHost implements AutoCloseable {

    static final Duration TIMEOUT = Duration.ofSeconds(10);
    static final int CAPSULE_MAX = 64 + 16384;
    static final int DATA_SIZE = 4 << 20;
    /** CC as a Linux host writes it to enable: EN, IOSQES 6, IOCQES 4, CSS NVM, MPS 4 KiB. */
    static final int CC_ENABLE_NVM = 0x0046_0001;

    final RdmaDevice device;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final Arena arena = Arena.ofShared();
    final MemorySegment capsule;
    final MemorySegment responses;
    final MemoryRegion local;
    /** Host memory the target reads from and writes to (keyed SGLs). */
    final MemorySegment data;
    final MemoryRegion dataRegion;
    /** The window keyed SGLs with the Invalidate Key subtype name: a peer may invalidate only a window. */
    final MemoryWindow window;
    final int hrqsize;
    final WorkCompletion[] wcs = new WorkCompletion[16];
    /** Responses reaped in the same batch as an earlier one, for the next {@link #awaitResponse} calls. */
    private final java.util.ArrayDeque<Response> reaped = new java.util.ArrayDeque<>();
    RdmaConnection connection;
    RdmaCmAccept accept;
    private int nextCid = 1;

    /** What came back for one command. */
    record Response(CompletionQueueEntry cqe, boolean withInvalidate, int invalidatedRkey) {
        int status() {
            return cqe.statusField();
        }

        int sqHead() {
            return cqe.sqHead();
        }
    }

    ScriptedRdmaHost(int hrqsize) throws VerbsException {
        this.hrqsize = hrqsize;
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        this.device = RdmaProviders.byName("softiwarp").openDevice(null);
        this.pd = device.allocatePd();
        this.cq = device.createCompletionQueue(1024);
        MemorySegment all = arena.allocate(CAPSULE_MAX + 16L * hrqsize, 4096);
        this.capsule = all.asSlice(0, CAPSULE_MAX);
        this.responses = all.asSlice(CAPSULE_MAX, 16L * hrqsize);
        this.local = pd.register(all, EnumSet.of(AccessFlag.LOCAL_WRITE));
        this.data = arena.allocate(DATA_SIZE, 4096);
        this.dataRegion = pd.register(data, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_WRITE, AccessFlag.MW_BIND));
        this.window = pd.allocateWindow();
    }

    /** Connects one queue pair with the NVMe-oF CM request {@code privateData}; receives are posted first. */
    static ScriptedRdmaHost connect(InetSocketAddress target, byte[] privateData, int hrqsize) throws VerbsException {
        ScriptedRdmaHost host = new ScriptedRdmaHost(hrqsize);
        try {
            host.connection = host.device.connectionManager().connect(target, new ConnectParams(host.pd, host.cq,
                    host.cq, new QueuePairAttributes(64, hrqsize, 2, 1, 0, 16, 16), privateData, qp -> {
                        for (int i = 0; i < hrqsize; i++) {
                            qp.postReceive(host.responseReceive(i));
                        }
                    }), TIMEOUT);
            host.accept = RdmaCmAccept.decode(MemorySegment.ofArray(host.connection.peerPrivateData()));
            return host;
        } catch (VerbsException | RuntimeException e) {
            host.close();
            throw e;
        }
    }

    /** Connects queue {@code qid} the way Linux does (HRQSIZE = entries, HSQSIZE = entries - 1). */
    static ScriptedRdmaHost connect(InetSocketAddress target, int qid, int entries) throws VerbsException {
        return connect(target, RdmaCmRequest.of(QueueId.of(qid), entries, entries - 1).toBytes(), entries);
    }

    private ReceiveWorkRequest responseReceive(int i) {
        return new ReceiveWorkRequest(1).wrId(i).local(local, CAPSULE_MAX + 16L * i, 16);
    }

    // ---- capsules ----

    SubmissionQueueEntry newSqe(int opcode) {
        capsule.asSlice(0, 64).fill((byte) 0);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.wrap(capsule);
        sqe.opcode(opcode).cid(nextCid++).psdt(SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS);
        // the null keyed SGL Linux sends for commands without data (nvme_rdma_set_sg_null)
        new KeyedSglDescriptor(0, 0, 0, false).encode(sqe.dptr());
        return sqe;
    }

    /** Points SGL1 at {@code length} bytes of {@link #data} at {@code offset}. */
    void keyed(SubmissionQueueEntry sqe, long offset, int length, boolean invalidate) {
        int rkey = dataRegion.rkey();
        if (invalidate) {
            try {
                rkey = window.bind(dataRegion, offset, length,
                        EnumSet.of(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE));
            } catch (VerbsException e) {
                throw new IllegalStateException(e);
            }
        }
        new KeyedSglDescriptor(dataRegion.address() + offset, length, rkey, invalidate).encode(sqe.dptr());
    }

    /** Puts {@code bytes} behind the SQE as in-capsule data, SGL1 a data block with offset 0. */
    int inCapsule(SubmissionQueueEntry sqe, byte[] bytes) {
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, capsule, 64, bytes.length);
        DataBlockDescriptor.inCapsule(0, bytes.length).encode(sqe.dptr());
        return 64 + bytes.length;
    }

    /** Sends the capsule ({@code capsuleLength} bytes) and waits for its response. */
    Response execute(int capsuleLength) throws VerbsException, InterruptedException {
        send(capsuleLength);
        return awaitResponse();
    }

    Response execute() throws VerbsException, InterruptedException {
        return execute(64);
    }

    void send(int capsuleLength) throws VerbsException {
        SendWorkRequest wr = new SendWorkRequest(1).wrId(1L << 40).opcode(SendOpcode.SEND)
                .local(local, 0, capsuleLength);
        connection.queuePair().postSend(wr);
    }

    /** The next response, in the order they arrived (several may come in one batch of completions). */
    Response awaitResponse() throws VerbsException, InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (reaped.isEmpty() && System.nanoTime() < deadline) {
            int n = cq.await(wcs, 100, TimeUnit.MILLISECONDS);
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = wcs[i];
                if (wc.status() != WcStatus.SUCCESS) {
                    if (!reaped.isEmpty()) {
                        break; // the responses before it first
                    }
                    throw new VerbsException(io.nvmf4j.verbs.VerbsErrorCode.IO_ERROR, "host completion " + wc);
                }
                if (wc.opcode() == WcOpcode.RECV) {
                    int slot = (int) wc.wrId();
                    CompletionQueueEntry cqe = CompletionQueueEntry.allocate();
                    MemorySegment.copy(responses, 16L * slot, cqe.segment(), 0, 16);
                    reaped.add(new Response(cqe, wc.withInvalidate(), wc.invalidatedRkey()));
                    connection.queuePair().postReceive(responseReceive(slot));
                }
            }
        }
        if (!reaped.isEmpty()) {
            return reaped.poll();
        }
        throw new VerbsException(io.nvmf4j.verbs.VerbsErrorCode.TIMED_OUT, "no response within " + TIMEOUT);
    }

    // ---- fabrics commands, by the offsets of NVMe-oF 1.1 (Linux struct nvmf_connect_command etc.) ----

    /** Connect with its 1024-byte data through a keyed SGL (as Linux sends the admin Connect). */
    Response connectCommand(int qid, int sqsize, int cntlid, String subnqn, String hostnqn)
            throws VerbsException, InterruptedException {
        prepareConnect(qid, sqsize, cntlid, subnqn, hostnqn, DEFAULT_HOST_ID, 1024);
        return execute();
    }

    /** The Host Identifier {@link #connectCommand} sends (bytes A0h..AFh). */
    static final byte[] DEFAULT_HOST_ID = hostId(0xA0);

    static byte[] hostId(int first) {
        byte[] id = new byte[16];
        for (int i = 0; i < 16; i++) {
            id[i] = (byte) (first + i);
        }
        return id;
    }

    /**
     * Builds a Connect capsule (not sent) whose 1024 bytes of Connect data sit at the start of {@link #data}, with
     * a keyed SGL of {@code sglLength} bytes there (a hostile host may describe more than 1024).
     */
    void prepareConnect(int qid, int sqsize, int cntlid, String subnqn, String hostnqn, byte[] hostId,
                        int sglLength) {
        SubmissionQueueEntry sqe = newSqe(0x7F);
        Wire.u8(sqe.segment(), 4, 0x01);
        Wire.u16(sqe.segment(), 42, qid);
        Wire.u16(sqe.segment(), 44, sqsize);
        Wire.u32(sqe.segment(), 48, 0);
        MemorySegment d = data.asSlice(0, 1024);
        d.fill((byte) 0);
        MemorySegment.copy(MemorySegment.ofArray(hostId), 0, d, 0, 16);
        Wire.u16(d, 16, cntlid);
        Nqn.writeField(d.asSlice(256, 256), subnqn);
        Nqn.writeField(d.asSlice(512, 256), hostnqn);
        keyed(sqe, 0, sglLength, false);
    }

    /** Get Features (0Ah) of {@code fid}, its data (if any) through a keyed SGL of {@code length} bytes at offset. */
    Response getFeatures(int fid, long offset, int length) throws VerbsException, InterruptedException {
        SubmissionQueueEntry sqe = newSqe(0x0A);
        sqe.cdw(10, fid);
        if (length > 0) {
            keyed(sqe, offset, length, false);
        }
        return execute();
    }

    /** Property Set CC.EN = 1 and waits (bounded) for CSTS.RDY, as a host enables its controller. */
    void enable() throws VerbsException, InterruptedException {
        Response set = propertySet(0x14, CC_ENABLE_NVM);
        if (set.status() != 0) {
            throw new IllegalStateException("Property Set CC failed: " + set.cqe());
        }
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            Response csts = propertyGet(0x1C, false);
            if ((csts.cqe().result() & 1) != 0) {
                return;
            }
            Thread.sleep(5);
        }
        throw new IllegalStateException("CSTS.RDY not set");
    }

    Response propertyGet(int offset, boolean eightBytes) throws VerbsException, InterruptedException {
        SubmissionQueueEntry sqe = newSqe(0x7F);
        Wire.u8(sqe.segment(), 4, 0x04);
        Wire.u8(sqe.segment(), 40, eightBytes ? 1 : 0);
        Wire.u32(sqe.segment(), 44, offset);
        return execute();
    }

    Response propertySet(int offset, long value) throws VerbsException, InterruptedException {
        SubmissionQueueEntry sqe = newSqe(0x7F);
        Wire.u8(sqe.segment(), 4, 0x00);
        Wire.u32(sqe.segment(), 44, offset);
        Wire.u64(sqe.segment(), 48, value);
        return execute();
    }

    Response disconnectCommand() throws VerbsException, InterruptedException {
        SubmissionQueueEntry sqe = newSqe(0x7F);
        Wire.u8(sqe.segment(), 4, 0x08);
        return execute();
    }

    /** Identify (06h) with CNS into {@link #data} at {@code offset}, through a keyed SGL. */
    Response identify(int cns, long nsid, long offset, boolean invalidate) throws VerbsException, InterruptedException {
        SubmissionQueueEntry sqe = newSqe(0x06);
        sqe.nsid(nsid);
        sqe.cdw(10, cns);
        keyed(sqe, offset, 4096, invalidate);
        return execute();
    }

    /** Read (02h) or Write (01h) of {@code blocks} blocks at {@code slba}; data through a keyed SGL at offset. */
    SubmissionQueueEntry readWrite(int opcode, long nsid, long slba, int blocks) {
        SubmissionQueueEntry sqe = newSqe(opcode);
        sqe.nsid(nsid);
        sqe.cdw(10, (int) slba);
        sqe.cdw(11, (int) (slba >>> 32));
        sqe.cdw(12, blocks - 1);
        return sqe;
    }

    @Override
    public void close() {
        if (connection != null) {
            connection.close();
        }
        try {
            dataRegion.close();
        } catch (RuntimeException ignored) {
            // already gone with the device
        }
        local.close();
        cq.close();
        try {
            pd.close();
        } catch (Exception ignored) {
            // best effort
        }
        device.close();
        arena.close();
    }
}
