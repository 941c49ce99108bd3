package io.nvmf4j.initiator.fake;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.ActiveNamespaceList;
import io.nvmf4j.protocol.admin.AdminOpcode;
import io.nvmf4j.protocol.admin.FeatureId;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.admin.LbaFormat;
import io.nvmf4j.protocol.admin.NumberOfQueues;
import io.nvmf4j.protocol.admin.SetFeaturesCommand;
import io.nvmf4j.protocol.fabrics.ConnectCommand;
import io.nvmf4j.protocol.fabrics.ConnectData;
import io.nvmf4j.protocol.fabrics.ControllerCapabilities;
import io.nvmf4j.protocol.fabrics.ControllerConfiguration;
import io.nvmf4j.protocol.fabrics.ControllerProperty;
import io.nvmf4j.protocol.fabrics.ControllerStatus;
import io.nvmf4j.protocol.fabrics.FabricsCommandType;
import io.nvmf4j.protocol.fabrics.PropertyGetCommand;
import io.nvmf4j.protocol.fabrics.PropertySetCommand;
import io.nvmf4j.protocol.io.DatasetManagementCommand;
import io.nvmf4j.protocol.io.DsmRange;
import io.nvmf4j.protocol.io.IoOpcode;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.log.DiscoveryLogPage;
import io.nvmf4j.protocol.rdma.RdmaCmAccept;
import io.nvmf4j.protocol.rdma.RdmaCmReject;
import io.nvmf4j.protocol.rdma.RdmaCmRejectStatus;
import io.nvmf4j.protocol.rdma.RdmaCmRequest;
import io.nvmf4j.protocol.sgl.DataBlockDescriptor;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;
import io.nvmf4j.protocol.sgl.SglDescriptor;
import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * TEST DOUBLE: a minimal, scripted NVMe-oF controller over the verbs API (softiwarp on loopback), just enough to
 * drive the host library through connect, enable, identify, discovery and I/O: one RAM namespace, one thread per
 * queue, one command at a time. It is not the project's target (module {@code target}) and checks little; it
 * records what it received (SQEs, SGL forms, CM requests) so tests can assert on the host's wire behaviour.
 */
public final class ScriptedController implements AutoCloseable {

    /** What the double does, set before clients connect. */
    public static final class Script {
        public Nqn subsystem = Nqn.parse("nqn.2026-12.io.nvmf4j:test");
        public int blockSize = 512;
        public long blocks = 8192;
        public int mdts = 3;                 // 2^3 * 4 KiB = 32 KiB per command
        public int inCapsuleBytes = 4096;    // IOCCSZ = (64 + this) / 16
        public int grantedQueues = 8;
        public int mqes = 127;
        public int rejectStatus = 0;         // non-zero: reject every CM request with this NVMe RDMA CM status
        public boolean silentIo = false;     // never answer I/O commands
        public int discoveryRecords = 0;     // discovery log: records (the last one a referral when > 1)
        public int bumpGenctrOnFirstRead = 0; // discovery: GENCTR changes while the first N header re-reads
        public boolean closeAfterFirstIo = false; // drop every connection after the first I/O command
        public boolean closeOnEveryIo = false;    // drop every connection on every I/O command
        // ---- hostile behaviour (tests of the host against a malicious controller) ----
        public long nn = 1;                  // Identify Controller NN
        /** Active namespace list page for a CNS 02h command with this NSID (null: [1] after NSID 0, then empty). */
        public java.util.function.LongFunction<List<Long>> activeNamespaces = null;
        /** Discovery log header NUMREC as claimed (null: the true count); the records sent stay discoveryRecords. */
        public Long discoveryNumrecClaim = null;
        /** Identify Namespace LBADS as reported (null: that of blockSize); the media stays blockSize blocks. */
        public Integer lbadsClaim = null;
        /** Reads: send the data, then complete with Internal Error (a failed command whose data arrived). */
        public boolean readDataThenInternalError = false;
        /** What the controller does with the host's keyed buffers, on queue {@link #hostileQueue} only. */
        public Hostility hostility = Hostility.NONE;
        public int hostileQueue = 1;
        /**
         * A hostile controller (fuzzing): when set, Identify and Get Log Page are answered with success and the
         * bytes this returns for the command (zero-padded or cut to the command's data length), or, when it returns
         * null, with Invalid Field.
         */
        public volatile java.util.function.Function<SubmissionQueueEntry, byte[]> hostileAdminData;
    }

    /** Misuse of the host's keyed SGLs (issue 13, F6). */
    public enum Hostility {
        NONE,
        /** Data to the host: RDMA Write 4 KiB more than the command's length (bytes EEh past the end). */
        WRITE_PAST_END,
        /** Data to the host: RDMA Write with this command's key at the previous command's address. */
        WRITE_AT_PREVIOUS_ADDRESS,
        /** Data to the host: first RDMA Write the previous (completed) command's buffer with its old key. */
        WRITE_WITH_PREVIOUS_KEY,
        /** Data from the host: RDMA Read 4 KiB more than the command's length ({@link #stolen} gets them). */
        READ_PAST_END,
        /**
         * Data to the host: wait for the host's next command, then answer this one by Send with Invalidate naming
         * the next command's key.
         */
        INVALIDATE_ANOTHER_COMMANDS_KEY
    }

    /** One received command, as the host sent it. */
    public record Received(int qid, int opcode, int cid, long nsid, int sglType, int sglSubtype, int dataLength,
            byte[] sqe) {
    }

    public final Script script;
    public final List<RdmaCmRequest> cmRequests = new CopyOnWriteArrayList<>();
    public final List<byte[]> cmPrivateData = new CopyOnWriteArrayList<>();
    public final List<Received> received = new CopyOnWriteArrayList<>();
    /** The range data of each Dataset Management received, as the host sent it. */
    public final List<byte[]> dsmRanges = new CopyOnWriteArrayList<>();
    public final List<ConnectData> connectData = new CopyOnWriteArrayList<>();
    public final AtomicInteger keepAlives = new AtomicInteger();
    /** Failed work completions and disconnects the controller saw (a remote access error, a Terminate...). */
    public final List<String> remoteErrors = new CopyOnWriteArrayList<>();
    /** Host bytes a READ_PAST_END read got from beyond the command's buffer. */
    public final List<byte[]> stolen = new CopyOnWriteArrayList<>();
    public volatile int maxOutstandingSeen;

    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final RdmaListener listener;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment media;
    private final Thread acceptor;
    private final List<Thread> handlers = new CopyOnWriteArrayList<>();
    private final List<RdmaConnection> connections = new CopyOnWriteArrayList<>();
    private volatile boolean running = true;
    /**
     * The keyed SGL of the first command with one on the hostile queue, kept over reconnects: the host re-sends a
     * failed command on a new connection, and the hostility goes on there.
     */
    private volatile KeyedSglDescriptor previous;
    private volatile int cc;
    private volatile int genctrReads;
    private final AtomicInteger nextCntlid = new AtomicInteger(1);

    public ScriptedController(Script script) throws Exception {
        this(script, 0);
    }

    /** Listens on {@code port} of 127.0.0.1 (0: any free port), e.g. to stand in for a restarted target. */
    public ScriptedController(Script script, int port) throws Exception {
        this.script = script;
        this.device = RdmaProviders.byName("softiwarp").openDevice(null);
        this.pd = device.allocatePd();
        this.media = arena.allocate(script.blockSize * script.blocks, 4096);
        this.listener = device.connectionManager().listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        this.acceptor = Thread.ofPlatform().daemon().name("scripted-accept").start(this::acceptLoop);
    }

    public InetSocketAddress address() {
        return listener.localAddress();
    }

    /** The namespace's bytes (for checking what the host wrote, or preparing what it reads). */
    public MemorySegment media() {
        return media;
    }

    public List<Received> receivedWithOpcode(int opcode) {
        return received.stream().filter(r -> r.opcode == opcode).toList();
    }

    /** Commands with this opcode received on I/O queues. */
    public List<Received> receivedIo(int opcode) {
        return received.stream().filter(r -> r.qid != 0 && r.opcode == opcode).toList();
    }

    /** Drops every connection (as a target crash would). */
    public void dropConnections() {
        for (RdmaConnection c : connections) {
            c.disconnect();
        }
    }

    private void acceptLoop() {
        while (running) {
            ConnectRequest request;
            try {
                request = listener.accept(Duration.ofMillis(200));
            } catch (Exception e) {
                return;
            }
            if (request == null) {
                continue;
            }
            try {
                cmPrivateData.add(request.privateData());
                RdmaCmRequest cm = RdmaCmRequest.decode(MemorySegment.ofArray(request.privateData()));
                cmRequests.add(cm);
                if (script.rejectStatus != 0) {
                    request.reject(new RdmaCmReject(0, script.rejectStatus).toBytes());
                    continue;
                }
                Handler h = new Handler(cm);
                RdmaConnection conn = request.accept(new AcceptParams(pd, h.cq, h.cq,
                        new QueuePairAttributes(cm.hrqsize() * 2 + 4, cm.hrqsize() + 1, 2, 1, 0, 16, 16),
                        RdmaCmAccept.of(cm.hrqsize()).toBytes(), h::postReceives));
                h.connection = conn;
                connections.add(conn);
                conn.onDisconnect(e -> remoteErrors.add("q" + cm.qid().value() + " disconnected: " + e.cause() + " "
                        + e.detail()));
                Thread t = Thread.ofPlatform().daemon().name("scripted-q" + cm.qid().value()).start(h::run);
                handlers.add(t);
            } catch (Exception e) {
                if (running) {
                    e.printStackTrace();
                }
            }
        }
    }

    private final class Handler {
        final RdmaCmRequest cm;
        final int slots;
        final int capsule;
        final CompletionQueue cq;
        final MemoryRegion recv;
        final MemoryRegion send;
        final MemoryRegion data;
        RdmaConnection connection;
        final ArrayDeque<Long> readyRecvs = new ArrayDeque<>();
        final ArrayDeque<int[]> readyLengths = new ArrayDeque<>();
        int qid;

        Handler(RdmaCmRequest cm) throws Exception {
            this.cm = cm;
            this.qid = cm.qid().value();
            this.slots = cm.hrqsize();
            this.capsule = SubmissionQueueEntry.SIZE + (qid == 0 ? 0 : script.inCapsuleBytes);
            this.cq = device.createCompletionQueue(slots * 4 + 8);
            this.recv = pd.register(arena.allocate((long) slots * capsule, 64), EnumSet.of(AccessFlag.LOCAL_WRITE));
            this.send = pd.register(arena.allocate(16, 16), EnumSet.of(AccessFlag.LOCAL_WRITE));
            this.data = pd.register(arena.allocate(Math.max(1 << 20, script.blockSize), 4096), EnumSet.of(AccessFlag.LOCAL_WRITE));
        }

        void postReceives(io.nvmf4j.verbs.QueuePair qp) throws io.nvmf4j.verbs.VerbsException {
            for (int i = 0; i < slots; i++) {
                qp.postReceive(new ReceiveWorkRequest(1).wrId(i).local(recv, (long) i * capsule, capsule));
            }
        }

        void run() {
            WorkCompletion[] wcs = {new WorkCompletion()};
            try {
                while (running && connection.isConnected()) {
                    int n = cq.await(wcs, 100, TimeUnit.MILLISECONDS);
                    if (n == 0) {
                        continue;
                    }
                    WorkCompletion wc = wcs[0];
                    if (wc.status() != WcStatus.SUCCESS) {
                        return;
                    }
                    if (wc.opcode() == WcOpcode.RECV) {
                        handle((int) wc.wrId(), wc.byteLength());
                    }
                    while (!readyRecvs.isEmpty()) {
                        long slot = readyRecvs.pollFirst();
                        handle((int) slot, readyLengths.pollFirst()[0]);
                    }
                }
            } catch (Exception e) {
                if (running && connection.isConnected() && script.hostility == Hostility.NONE) {
                    e.printStackTrace();
                }
            }
        }

        private boolean hostile(Hostility h) {
            return script.hostility == h && script.hostileQueue == qid;
        }

        private void handle(int slot, int length) throws Exception {
            MemorySegment capsuleBytes = recv.segment().asSlice((long) slot * capsule, capsule);
            SubmissionQueueEntry sqe = SubmissionQueueEntry.wrap(capsuleBytes);
            byte[] raw = sqe.segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            int sglId = Wire.u8(sqe.dptr(), 15);
            int dataLength = (sglId >>> 4) == 4 ? Wire.u24(sqe.dptr(), 8) : (int) Wire.u32(sqe.dptr(), 8);
            received.add(new Received(qid, sqe.opcode(), sqe.cid(), sqe.nsid(), sglId >>> 4, sglId & 0xF, dataLength,
                    raw));
            // the in-capsule data must be read before the receive is re-posted
            byte[] inCapsule = length > 64 ? capsuleBytes.asSlice(64, length - 64).toArray(
                    java.lang.foreign.ValueLayout.JAVA_BYTE) : new byte[0];
            int cid = sqe.cid();
            connection.queuePair().postReceive(new ReceiveWorkRequest(1).wrId(slot)
                    .local(recv, (long) slot * capsule, capsule));
            if (qid != 0 && sqe.opcode() != FabricsCommandType.OPCODE) {
                if (script.silentIo) {
                    return;
                }
                if (script.closeAfterFirstIo) {
                    script.closeAfterFirstIo = false;
                    dropConnections();
                    return;
                }
                if (script.closeOnEveryIo) {
                    dropConnections();
                    return;
                }
            }
            Response r = execute(sqe, raw, inCapsule);
            KeyedSglDescriptor k = (Byte.toUnsignedInt(raw[39]) >>> 4) == SglDescriptor.TYPE_KEYED_DATA_BLOCK
                    ? keyed(raw) : null;
            // nvmet_rdma_queue_response(): a keyed SGL with the invalidate subtype is answered by Send with Invalidate
            int invalidate = k != null && k.invalidate() && k.length() > 0 ? k.key() : 0;
            boolean answerWithInvalidate = invalidate != 0;
            if (r.toHost > 0) {
                int written = r.toHost;
                if (hostile(Hostility.WRITE_PAST_END)) {
                    data.segment().asSlice(written, 4096).fill((byte) 0xEE);
                    written += 4096;
                }
                if (hostile(Hostility.WRITE_WITH_PREVIOUS_KEY) && previous != null) {
                    connection.queuePair().postSend(new SendWorkRequest(1).opcode(SendOpcode.RDMA_WRITE)
                            .signaled(false).local(data, 0, r.toHost).remote(previous.address(), previous.key()));
                }
                long address = hostile(Hostility.WRITE_AT_PREVIOUS_ADDRESS) && previous != null
                        ? previous.address() : k.address();
                if (hostile(Hostility.INVALIDATE_ANOTHER_COMMANDS_KEY)) {
                    invalidate = nextCommandsKey();
                    answerWithInvalidate = true;
                }
                SendWorkRequest write = new SendWorkRequest(1).opcode(SendOpcode.RDMA_WRITE).signaled(false)
                        .local(data, 0, written).remote(address, k.key());
                connection.queuePair().postSend(write.next(response(cid, r, answerWithInvalidate, invalidate)));
            } else {
                connection.queuePair().postSend(response(cid, r, answerWithInvalidate, invalidate));
            }
            if (k != null && k.length() > 0 && qid == script.hostileQueue && previous == null) {
                previous = k; // the first command served honestly: the one the hostile ones aim at
            }
            waitFor(WcOpcode.SEND);
        }

        /** Waits for the host's next capsule (handled after this one) and returns the key of its keyed SGL. */
        private int nextCommandsKey() throws Exception {
            WorkCompletion[] wcs = {new WorkCompletion()};
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (readyRecvs.isEmpty() && System.nanoTime() < deadline) {
                if (cq.await(wcs, 50, TimeUnit.MILLISECONDS) == 1 && wcs[0].opcode() == WcOpcode.RECV
                        && wcs[0].status() == WcStatus.SUCCESS) {
                    readyRecvs.addLast(wcs[0].wrId());
                    readyLengths.addLast(new int[] {wcs[0].byteLength()});
                }
            }
            if (readyRecvs.isEmpty()) {
                throw new IllegalStateException("scripted controller: the host sent no second command");
            }
            long slot = readyRecvs.peekFirst();
            byte[] next = recv.segment().asSlice(slot * capsule, SubmissionQueueEntry.SIZE)
                    .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            return keyed(next).key();
        }

        private SendWorkRequest response(int cid, Response r, boolean withInvalidate, int rkey) {
            CompletionQueueEntry cqe = CompletionQueueEntry.wrap(send.segment()).clear();
            cqe.cid(cid).sqId(qid).sqHead(0).result(r.result).statusField(r.status.toField());
            SendWorkRequest wr = new SendWorkRequest(1).local(send, 0, 16);
            return withInvalidate ? wr.opcode(SendOpcode.SEND_WITH_INVALIDATE).invalidateRkey(rkey)
                    : wr.opcode(SendOpcode.SEND);
        }

        private void waitFor(WcOpcode opcode) throws Exception {
            WorkCompletion[] wcs = {new WorkCompletion()};
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (System.nanoTime() < deadline) {
                if (cq.await(wcs, 50, TimeUnit.MILLISECONDS) == 0) {
                    continue;
                }
                WorkCompletion wc = wcs[0];
                if (wc.status() != WcStatus.SUCCESS) {
                    remoteErrors.add("q" + qid + " " + wc.opcode() + " " + wc.status());
                    throw new IllegalStateException("scripted controller: " + wc);
                }
                if (wc.opcode() == opcode) {
                    return;
                }
                if (wc.opcode() == WcOpcode.RECV) {
                    // handled after the current command: one command at a time per queue
                    readyRecvs.addLast(wc.wrId());
                    readyLengths.addLast(new int[] {wc.byteLength()});
                }
            }
            throw new IllegalStateException("scripted controller: no " + opcode + " completion");
        }

        /** Fetches host data into {@code data} (keyed: RDMA Read; in-capsule: copy). */
        private void fetch(byte[] raw, byte[] inCapsule, int length) throws Exception {
            int type = Byte.toUnsignedInt(raw[39]) >>> 4;
            if (type == 0) {
                MemorySegment.copy(MemorySegment.ofArray(inCapsule), 0, data.segment(), 0, length);
                return;
            }
            KeyedSglDescriptor k = keyed(raw);
            int asked = hostile(Hostility.READ_PAST_END) ? length + 4096 : length;
            connection.queuePair().postSend(new SendWorkRequest(1).opcode(SendOpcode.RDMA_READ)
                    .local(data, 0, asked).remote(k.address(), k.key()));
            waitFor(WcOpcode.RDMA_READ);
            if (asked > length) {
                stolen.add(data.segment().asSlice(length, asked - length)
                        .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            }
        }

        private KeyedSglDescriptor keyed(byte[] raw) {
            return (KeyedSglDescriptor) SglDescriptor.decode(MemorySegment.ofArray(raw).asSlice(24, 16));
        }

        private Response execute(SubmissionQueueEntry sqe, byte[] raw, byte[] inCapsule) throws Exception {
            int opcode = sqe.opcode();
            if (opcode == FabricsCommandType.OPCODE) {
                int fctype = Wire.u8(sqe.segment(), 4);
                if (fctype == FabricsCommandType.CONNECT.value()) {
                    fetch(raw, inCapsule, ConnectData.SIZE);
                    ConnectData cd = ConnectData.decode(data.segment());
                    connectData.add(cd);
                    int cntlid = cd.cntlid().isDynamic() ? nextCntlid.getAndIncrement() : cd.cntlid().value();
                    return Response.ok(cntlid);
                }
                if (fctype == FabricsCommandType.PROPERTY_GET.value()) {
                    PropertyGetCommand get = PropertyGetCommand.decode(sqe);
                    ControllerProperty p = ControllerProperty.at(get.offset()).orElseThrow();
                    return switch (p) {
                        case CAP -> Response.ok(new ControllerCapabilities(script.mqes, true, 0, 2, 0, false,
                                ControllerCapabilities.CSS_NVM, false, 0, 0).toRaw());
                        case VS -> Response.ok(0x00010300);
                        case CC -> Response.ok(Integer.toUnsignedLong(cc));
                        case CSTS -> {
                            ControllerConfiguration c = ControllerConfiguration.fromRaw(cc);
                            yield Response.ok(new ControllerStatus(c.enable(), false,
                                    c.shn() != 0 ? ControllerStatus.SHST_COMPLETE : 0, false, false).toRaw());
                        }
                        default -> Response.error(StatusCode.INVALID_FIELD);
                    };
                }
                if (fctype == FabricsCommandType.PROPERTY_SET.value()) {
                    PropertySetCommand set = PropertySetCommand.decode(sqe);
                    cc = (int) set.value();
                    return Response.ok(0);
                }
                return Response.error(StatusCode.INVALID_OPCODE);
            }
            if (qid == 0) {
                return admin(sqe, raw);
            }
            return io(sqe, raw, inCapsule);
        }

        private Response admin(SubmissionQueueEntry sqe, byte[] raw) {
            int opcode = sqe.opcode();
            var hostile = script.hostileAdminData;
            if (hostile != null && (opcode == AdminOpcode.IDENTIFY.code() || opcode == AdminOpcode.GET_LOG_PAGE.code())) {
                byte[] bytes = hostile.apply(sqe);
                if (bytes == null) {
                    return Response.error(StatusCode.INVALID_FIELD);
                }
                long asked = opcode == AdminOpcode.IDENTIFY.code() ? 4096 : GetLogPageCommand.wrap(sqe).lengthBytes();
                int len = (int) Math.min(Math.min(data.segment().byteSize(), asked), keyed(raw).length());
                MemorySegment out = data.segment().asSlice(0, len);
                out.fill((byte) 0);
                MemorySegment.copy(MemorySegment.ofArray(bytes), 0, out, 0, Math.min(len, bytes.length));
                return Response.toHost(len);
            }
            if (opcode == AdminOpcode.IDENTIFY.code()) {
                IdentifyCommand id = IdentifyCommand.wrap(sqe);
                MemorySegment out = data.segment().asSlice(0, 4096);
                out.fill((byte) 0);
                switch (id.cns()) {
                    case IdentifyCommand.CNS_CONTROLLER -> {
                        IdentifyController c = IdentifyController.wrap(out);
                        c.serialNumber("SCRIPTED0001").modelNumber("nvmf4j scripted test double").firmwareRevision("0.1");
                        c.mdts(script.mdts).cntlid(1).ver(0x00010300).sqes(0x66).cqes(0x44).maxcmd(script.mqes + 1)
                                .nn(script.nn).sgls(IdentifyController.SGLS_SUPPORTED | IdentifyController.SGLS_KEYED
                                        | IdentifyController.SGLS_OFFSET)
                                .ioccsz((64 + script.inCapsuleBytes) / 16).iorcsz(1).icdoff(0).kas(1);
                        c.subsystemNqn(script.subsystem);
                    }
                    case IdentifyCommand.CNS_NAMESPACE -> {
                        if (id.nsid() != 1) {
                            return Response.error(StatusCode.INVALID_NS);
                        }
                        IdentifyNamespace ns = IdentifyNamespace.wrap(out);
                        ns.nsze(script.blocks).ncap(script.blocks).nuse(script.blocks).nlbaf(0).flbas(0);
                        ns.lbaFormat(0, script.lbadsClaim == null ? LbaFormat.ofBlockSize(script.blockSize)
                                : new LbaFormat(0, script.lbadsClaim, 0));
                    }
                    case IdentifyCommand.CNS_ACTIVE_NAMESPACE_LIST -> {
                        if (script.activeNamespaces != null) {
                            List<Long> page = script.activeNamespaces.apply(id.nsid());
                            for (int i = 0; i < page.size(); i++) { // raw: a hostile list need not be increasing
                                Wire.u32(out, 4L * i, page.get(i));
                            }
                        } else {
                            ActiveNamespaceList.encode(out, id.nsid() < 1 ? List.of(1L) : List.of());
                        }
                    }
                    default -> {
                        return Response.error(StatusCode.INVALID_FIELD);
                    }
                }
                return Response.toHost(4096);
            }
            if (opcode == AdminOpcode.SET_FEATURES.code()) {
                SetFeaturesCommand set = SetFeaturesCommand.wrap(sqe);
                if (set.fid() == FeatureId.NUMBER_OF_QUEUES.code()) {
                    int g = script.grantedQueues;
                    return Response.ok(new NumberOfQueues(g, g).toDword());
                }
                return Response.ok(0);
            }
            if (opcode == AdminOpcode.KEEP_ALIVE.code()) {
                keepAlives.incrementAndGet();
                return Response.ok(0);
            }
            if (opcode == AdminOpcode.GET_LOG_PAGE.code()) {
                GetLogPageCommand get = GetLogPageCommand.wrap(sqe);
                int n = script.discoveryRecords;
                MemorySegment log = MemorySegment.ofArray(new byte[(int) DiscoveryLogPage.sizeFor(n)]);
                DiscoveryLogPage page = DiscoveryLogPage.wrap(log);
                if (get.offset() == 0 && !get.rae() && genctrReads < script.bumpGenctrOnFirstRead) {
                    genctrReads++;
                }
                page.genctr(7 + genctrReads).numrec(script.discoveryNumrecClaim != null ? script.discoveryNumrecClaim : n)
                        .recfmt(0);
                for (int i = 0; i < n; i++) {
                    DiscoveryLogEntry e = page.entry(i);
                    boolean referral = n > 1 && i == n - 1;
                    e.trtype(DiscoveryLogEntry.TRTYPE_RDMA).adrfam(DiscoveryLogEntry.ADRFAM_IPV4)
                            .subtype(referral ? DiscoveryLogEntry.SUBTYPE_REFERRAL : DiscoveryLogEntry.SUBTYPE_NVME)
                            .portId(1).cntlid(0xFFFF).asqsz(32).trsvcid("4420").traddr("127.0.0.1");
                    e.subsystemNqn(referral ? Nqn.DISCOVERY : Nqn.parse("nqn.2026-12.io.nvmf4j:sub" + i));
                    e.rdmaTsas(new io.nvmf4j.protocol.rdma.RdmaTsas(1, 5, 1, 0)); // connected, iWARP, RDMA_CM
                }
                int len = (int) get.lengthBytes();
                MemorySegment out = data.segment().asSlice(0, len);
                out.fill((byte) 0);
                long off = get.offset();
                if (off < log.byteSize()) {
                    MemorySegment.copy(log, off, out, 0, Math.min(len, log.byteSize() - off));
                }
                return Response.toHost(len);
            }
            return Response.error(StatusCode.INVALID_OPCODE);
        }

        private Response io(SubmissionQueueEntry sqe, byte[] raw, byte[] inCapsule) throws Exception {
            int opcode = sqe.opcode();
            long slba = sqe.getLong(40);
            int nlb = (sqe.cdw12() & 0xFFFF) + 1;
            long bytes = (long) nlb * script.blockSize;
            if (opcode == IoOpcode.FLUSH.code()) {
                return Response.ok(0);
            }
            if (opcode == IoOpcode.DATASET_MANAGEMENT.code()) {
                int ranges = (sqe.cdw10() & 0xFF) + 1;
                fetch(raw, inCapsule, ranges * DsmRange.SIZE);
                dsmRanges.add(data.segment().asSlice(0, (long) ranges * DsmRange.SIZE)
                        .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                if ((sqe.cdw11() & DatasetManagementCommand.ATTR_AD) == 0) {
                    return Response.ok(0); // IDR/IDW are hints: nothing to do (nvmet_bdev_execute_dsm())
                }
                for (int i = 0; i < ranges; i++) {
                    DsmRange r = DsmRange.decode(data.segment(), (long) i * DsmRange.SIZE);
                    media.asSlice(r.startingLba() * script.blockSize, r.lengthInBlocks() * script.blockSize)
                            .fill((byte) 0);
                }
                return Response.ok(0);
            }
            if (slba + nlb > script.blocks) {
                return new Response(StatusCode.LBA_RANGE.withDnr(), 0, 0);
            }
            MemorySegment region = media.asSlice(slba * script.blockSize, bytes);
            if (opcode == IoOpcode.READ.code()) {
                MemorySegment.copy(region, 0, data.segment(), 0, bytes);
                if (script.readDataThenInternalError) {
                    return new Response(StatusCode.INTERNAL.withDnr(), 0, (int) bytes);
                }
                return Response.toHost((int) bytes);
            }
            if (opcode == IoOpcode.WRITE.code()) {
                fetch(raw, inCapsule, (int) bytes);
                MemorySegment.copy(data.segment(), 0, region, 0, bytes);
                return Response.ok(0);
            }
            if (opcode == IoOpcode.WRITE_ZEROES.code()) {
                region.fill((byte) 0);
                return Response.ok(0);
            }
            return Response.error(StatusCode.INVALID_OPCODE);
        }
    }

    private record Response(Status status, long result, int toHost) {
        static Response ok(long result) {
            return new Response(Status.SUCCESS, result, 0);
        }

        static Response toHost(int bytes) {
            return new Response(Status.SUCCESS, 0, bytes);
        }

        static Response error(StatusCode code) {
            return new Response(code.withDnr(), 0, 0);
        }
    }

    @Override
    public void close() {
        running = false;
        listener.close();
        for (RdmaConnection c : connections) {
            c.close();
        }
        try {
            acceptor.join(2000);
            for (Thread t : handlers) {
                t.join(2000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        device.close();
        arena.close();
    }

    /** Unused helper kept for symmetry in assertions. */
    static List<Long> nsids() {
        return Collections.singletonList(1L);
    }

    static ControllerId cntlid(int v) {
        return ControllerId.of(v);
    }

    static DataBlockDescriptor inCapsule(int len) {
        return DataBlockDescriptor.inCapsule(0, len);
    }

    static List<Object> none() {
        return new ArrayList<>();
    }
}
