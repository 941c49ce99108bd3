package io.nvmf4j.initiator.fake;

import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.fabrics.ConnectData;
import io.nvmf4j.protocol.rdma.RdmaCmAccept;
import io.nvmf4j.protocol.rdma.RdmaCmReject;
import io.nvmf4j.protocol.rdma.RdmaCmRequest;
import io.nvmf4j.protocol.sgl.DataBlockDescriptor;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;
import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.RdmaProviders;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * TEST DOUBLE: a minimal, scripted NVMe-oF controller over the verbs API (softiwarp on loopback), just enough to
 * drive the host library through connect, enable, identify, discovery and I/O: one RAM namespace, one thread per
 * queue, one command at a time. It is not the project's target (module {@code target}) and checks little; it
 * records what it received (SQEs, SGL forms, CM requests) so tests can assert on the host's wire behaviour.
 *
 * <p>This class is the double's scripting API (its {@link Script}, what it recorded) and its listener; each queue a
 * host connects runs in a {@link ScriptedQueue}, which has {@link AdminCommands} and {@link IoCommands} answer the
 * commands.
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
    volatile KeyedSglDescriptor previous;
    /** Answers Fabrics and admin commands; one per controller, as the controller's registers are. */
    final AdminCommands adminCommands;
    /** Answers I/O commands against {@link #media}. */
    final IoCommands ioCommands;

    public ScriptedController(Script script) throws Exception {
        this(script, 0);
    }

    /** Listens on {@code port} of 127.0.0.1 (0: any free port), e.g. to stand in for a restarted target. */
    public ScriptedController(Script script, int port) throws Exception {
        this.script = script;
        this.device = RdmaProviders.byName("softiwarp").openDevice(null);
        this.pd = device.allocatePd();
        this.media = arena.allocate(script.blockSize * script.blocks, 4096);
        this.adminCommands = new AdminCommands(this);
        this.ioCommands = new IoCommands(this, media);
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

    /** False once closed: the queues' threads end. */
    boolean running() {
        return running;
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
                ScriptedQueue h = new ScriptedQueue(this, cm, device, pd, arena);
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
