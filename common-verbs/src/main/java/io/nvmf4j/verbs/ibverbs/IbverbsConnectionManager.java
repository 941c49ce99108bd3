package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.uring.Errno;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectionManager;
import io.nvmf4j.verbs.ConnectionRejectedException;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.QueuePairSetup;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_qp;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_qp_attr;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_qp_cap;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_qp_init_attr;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;
import io.nvmf4j.verbs.ibverbs.ffi.rdma_cm_id;
import io.nvmf4j.verbs.ibverbs.ffi.rdma_conn_param;
import io.nvmf4j.verbs.provider.PrivateData;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * rdma_cm for one device: listen, connect, and the pieces accept shares with connect (queue pair creation and
 * the connection parameters). The event channel and its thread start with the first listen or connect.
 */
final class IbverbsConnectionManager implements ConnectionManager {
    /**
     * Transport retries of an RC connection (the IB CM's 3-bit field). 6, not 7: rxe reads 7 as "retry forever"
     * (rxe_comp.c: {@code if (qp->comp.retry_cnt != 7) qp->comp.retry_cnt--}), so a peer that vanished without a
     * word would leave every request hanging; with 6 and rdma_cm's ~2.1 s timeout (local ack timeout 19) they
     * complete with RETRY_EXC_ERR after ~15 s.
     */
    private static final byte RETRY_COUNT = 6;
    /**
     * Receiver-not-ready retries (InfiniBand/RoCE only; 7 would retry forever). 0 by default: the verbs API says a
     * Send that finds no posted receive breaks the connection, as it does on iWARP, which has no RNR retry at all.
     * {@code nvmf4j.ibverbs.rnrRetry} overrides it (Linux nvme-rdma uses 7).
     */
    private static final byte RNR_RETRY_COUNT = (byte) Math.clamp(Integer.getInteger("nvmf4j.ibverbs.rnrRetry", 0), 0, 7);
    /** The most private data rdma_conn_param can carry (its length is a uint8_t). */
    static final int MAX_PRIVATE_DATA = 255;

    private final IbverbsDevice device;
    private final Resources connections = new Resources();
    /** Connections being destroyed in the background (see destroyLater). */
    private final List<Thread> teardowns = new ArrayList<>();
    private CmEventLoop loop;
    private boolean closed;

    IbverbsConnectionManager(IbverbsDevice device) {
        this.device = device;
    }

    IbverbsDevice device() {
        return device;
    }

    synchronized CmEventLoop loop() throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsErrorCode.CLOSED, "device " + device.name() + " is closed");
        }
        if (loop == null) {
            loop = new CmEventLoop(device.name());
        }
        return loop;
    }

    <T extends AutoCloseable> T track(T resource) {
        return connections.add(resource);
    }

    void forget(Object resource) {
        connections.remove((AutoCloseable) resource);
        CmEventLoop current;
        synchronized (this) {
            current = loop;
        }
        if (current != null) {
            if (resource instanceof IbverbsConnection connection) {
                current.unregister(connection.id());
            } else if (resource instanceof IbverbsListener listener) {
                current.unregister(listener.id());
            }
        }
    }

    @Override
    public RdmaListener listen(InetSocketAddress local, int backlog) throws VerbsException {
        device.checkOpen();
        CmEventLoop events = loop();
        MemorySegment id = Native.rdmaCreateId(events.channel());
        try (Arena arena = Arena.ofConfined()) {
            IbverbsListener listener = new IbverbsListener(this, id);
            events.register(id, listener::onCmEvent);
            try {
                Native.rdmaBindAddr(id, SocketAddresses.write(arena, local));
                Native.rdmaListen(id, backlog);
            } catch (VerbsException e) {
                events.unregister(id);
                throw new VerbsException(e.code(), "listening on " + local + " with " + device.name() + ": "
                        + e.getMessage(), e);
            }
            listener.bound(SocketAddresses.local(id));
            return track(listener);
        } catch (VerbsException | RuntimeException e) {
            ibverbs_h.rdma_destroy_id(id);
            throw e;
        }
    }

    @Override
    public RdmaConnection connect(InetSocketAddress remote, ConnectParams params, Duration timeout)
            throws VerbsException {
        device.checkOpen();
        PrivateData.checkLength(params.privateData(), MAX_PRIVATE_DATA, "rdma_conn_param");
        long deadline = System.nanoTime() + timeout.toNanos();
        CmEventLoop events = loop();
        MemorySegment id = Native.rdmaCreateId(events.channel());
        IbverbsConnection connection = new IbverbsConnection(this, id);
        events.register(id, connection::onCmEvent);
        track(connection);
        boolean done = false;
        try (Arena arena = Arena.ofConfined()) {
            Native.rdmaResolveAddr(id, SocketAddresses.write(arena, remote), millisLeft(deadline));
            expect(connection, deadline, remote, "address resolution", ibverbs_h.RDMA_CM_EVENT_ADDR_RESOLVED());
            checkSameDevice(id, remote);
            Native.rdmaResolveRoute(id, millisLeft(deadline));
            expect(connection, deadline, remote, "route resolution", ibverbs_h.RDMA_CM_EVENT_ROUTE_RESOLVED());
            IbverbsQueuePair qp = createQueuePair(connection, params.pd(), params.sendCq(), params.recvCq(),
                    params.qpAttributes());
            runSetup(params.setup(), qp);
            int ird = Math.min(params.qpAttributes().ird(), device.attributes().maxQpRdAtom());
            int ord = Math.min(params.qpAttributes().ord(), device.attributes().maxQpInitRdAtom());
            Native.rdmaConnect(id, connParam(arena, params.privateData(), ird, ord));
            CmEvent established = expect(connection, deadline, remote, "connection setup",
                    ibverbs_h.RDMA_CM_EVENT_ESTABLISHED());
            connection.peerPrivateData(established.privateData());
            // The peer's answer bounds our depths, but the event names them differently per transport: the IB CM
            // turns the REP's fields to our point of view (cm_format_rep_event(): responder_resources = the peer's
            // initiator depth, i.e. the IRD we need); on siw0 the other way round (asking IRD 8 / ORD 4 of a peer with
            // IRD 4 / ORD 8, the event said responder_resources 4, initiator_depth 8; read as our bounds, the old
            // code gave the client IRD 4 / ORD 8, more Reads than the peer takes)
            int ourIrdBound = device.iwarp() ? established.initiatorDepth() : established.responderResources();
            int ourOrdBound = device.iwarp() ? established.responderResources() : established.initiatorDepth();
            qp.readDepths(ourIrdBound > 0 ? Math.min(ird, Math.max(1, ourIrdBound)) : ird,
                    ourOrdBound > 0 ? Math.min(ord, ourOrdBound) : ord);
            connection.finishSetup();
            done = true;
            return connection;
        } catch (InterruptedException e) {
            throw interrupted("connecting to " + remote, e);
        } catch (VerbsException e) {
            if (e.code() == VerbsErrorCode.TIMED_OUT && !done) {
                // On iWARP, destroying an id whose connect is still out waits for the connect to end
                // (iwcm.c destroy_cm_id(): wait_event(connect_wait)), i.e. for siw's MPA reply timer,
                // MPAREQ_TIMEOUT = 10 s (siw_cm.h): the caller's timeout must not become 10 s.
                destroyLater(connection);
                done = true;
            }
            throw e;
        } finally {
            if (!done) {
                connection.destroy();
            }
        }
    }

    /** Destroys a connection on a thread of its own; {@link #close} waits for it (the channel outlives its ids). */
    private void destroyLater(IbverbsConnection connection) {
        Thread thread = Thread.ofPlatform().daemon().name("ibverbs-teardown-" + device.name())
                .start(connection::destroy);
        synchronized (teardowns) {
            teardowns.removeIf(t -> !t.isAlive());
            teardowns.add(thread);
        }
    }

    /**
     * Waits, at most {@code millis}, for the background teardowns {@link #destroyLater} started; returns whether any
     * were pending. A completion queue or protection domain whose destroy failed with EBUSY calls this before trying
     * once more: the queue pair of a timed-out iWARP connect still holds them until siw's MPA timer lets iwcm
     * destroy its id (the application did close everything it was given).
     */
    boolean awaitTeardowns(long millis) {
        List<Thread> pending;
        synchronized (teardowns) {
            teardowns.removeIf(t -> !t.isAlive());
            pending = new ArrayList<>(teardowns);
        }
        long deadline = System.nanoTime() + millis * 1_000_000;
        for (Thread thread : pending) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                break;
            }
            try {
                thread.join(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return !pending.isEmpty();
    }

    /** A setup step was interrupted: the thread keeps its interrupt status, the caller gets IO_ERROR. */
    static VerbsException interrupted(String what, InterruptedException e) {
        Thread.currentThread().interrupt();
        return new VerbsException(VerbsErrorCode.IO_ERROR, "interrupted while " + what, e);
    }

    /** Waits for the event that completes a setup step; anything else ends the setup with an exception. */
    static CmEvent expect(IbverbsConnection connection, long deadline, InetSocketAddress remote, String step,
            int wanted) throws VerbsException, InterruptedException {
        CmEvent event = connection.awaitEvent(deadline);
        if (event == null) {
            throw new VerbsException(VerbsErrorCode.TIMED_OUT, step + " with " + remote + " timed out");
        }
        if (event.is(wanted)) {
            return event;
        }
        if (event.is(ibverbs_h.RDMA_CM_EVENT_REJECTED())) {
            throw new ConnectionRejectedException(remote + " rejected the connection (" + rejectReason(event) + ")",
                    event.privateData());
        }
        int status = event.status();
        VerbsErrorCode code = status < 0 ? VerbsErrors.code(-status)
                : event.is(ibverbs_h.RDMA_CM_EVENT_UNREACHABLE()) ? VerbsErrorCode.TIMED_OUT
                : VerbsErrorCode.CONNECTION_RESET;
        throw new VerbsException(code, step + " with " + remote + " failed: " + event
                + (status < 0 ? " " + Errno.name(-status) : ""));
    }

    private static String rejectReason(CmEvent event) {
        int status = event.status();
        if (status < 0) {
            return Errno.name(-status); // iWARP: ECONNREFUSED, from a TCP reset or an MPA reject
        }
        return switch (status) {
            case 8 -> "IB CM reject reason 8: no listener on that port"; // IB_CM_REJ_INVALID_SERVICE_ID
            case 28 -> "IB CM reject reason 28: rejected by the peer"; // IB_CM_REJ_CONSUMER_DEFINED
            default -> "IB CM reject reason " + status;
        };
    }

    private static int millisLeft(long deadline) throws VerbsException {
        long millis = (deadline - System.nanoTime()) / 1_000_000;
        if (millis <= 0) {
            throw new VerbsException(VerbsErrorCode.TIMED_OUT, "connect timed out");
        }
        return (int) Math.min(Integer.MAX_VALUE, millis);
    }

    /**
     * The connection manager an accepted connection belongs to: this one, or, when the PD comes from another
     * {@link IbverbsDevice} object open on the same device (the same librdmacm context), that object's, so that
     * closing that object ends the connection as it closes the PD and CQs the connection uses.
     */
    IbverbsConnectionManager ownerFor(ProtectionDomain pd) {
        if (pd instanceof IbverbsProtectionDomain ibPd && ibPd.ibverbsDevice() != device
                && ibPd.ibverbsDevice().sameContext(device)) {
            return (IbverbsConnectionManager) ibPd.ibverbsDevice().connectionManager();
        }
        return this;
    }

    /**
     * Takes over a connection that arrived on another device object's listener: its id moves to this manager's
     * event channel ({@code rdma_migrate_id}, which waits until the id's events are acknowledged: the other loop
     * acknowledges each at once), so the other object may close first.
     */
    void adopt(IbverbsConnection connection) throws VerbsException {
        IbverbsConnectionManager previous = connection.manager();
        CmEventLoop events = loop();
        events.register(connection.id(), connection::onCmEvent);
        try {
            Native.rdmaMigrateId(connection.id(), events.channel());
        } catch (VerbsException e) {
            events.unregister(connection.id());
            throw e;
        }
        previous.forget(connection);
        connection.manager(this);
    }

    /** The id resolved to a device: it must be this one (PDs and CQs belong to one context). */
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    void checkSameDevice(MemorySegment id, InetSocketAddress address) throws VerbsException {
        MemorySegment verbs = rdma_cm_id.verbs(id.reinterpret(rdma_cm_id.sizeof()));
        if (!verbs.equals(device.context())) {
            String other = verbs.equals(MemorySegment.NULL) ? "no RDMA device" : "another RDMA device";
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT,
                    address + " is reached through " + other + ", not " + device.name());
        }
    }

    static void runSetup(QueuePairSetup setup, IbverbsQueuePair qp) throws VerbsException {
        setup.beforeConnect(qp);
    }

    /** {@code rdma_create_qp} on the connection's id; the granted sizes come back in the init attributes. */
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    IbverbsQueuePair createQueuePair(IbverbsConnection connection, ProtectionDomain pd, CompletionQueue sendCq,
            CompletionQueue recvCq, QueuePairAttributes wanted) throws VerbsException {
        if (!(pd instanceof IbverbsProtectionDomain ibPd) || !ibPd.ibverbsDevice().sameContext(device)
                || !(sendCq instanceof IbverbsCompletionQueue ibSendCq) || !ibSendCq.device().sameContext(device)
                || !(recvCq instanceof IbverbsCompletionQueue ibRecvCq) || !ibRecvCq.device().sameContext(device)) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT,
                    "the protection domain and completion queues must come from device " + device.name());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
            ibv_qp_init_attr.send_cq(init, ibSendCq.cq());
            ibv_qp_init_attr.recv_cq(init, ibRecvCq.cq());
            ibv_qp_init_attr.qp_type(init, ibverbs_h.IBV_QPT_RC());
            ibv_qp_init_attr.sq_sig_all(init, 0);
            MemorySegment cap = ibv_qp_init_attr.cap(init);
            ibv_qp_cap.max_send_wr(cap, wanted.maxSendWr());
            ibv_qp_cap.max_recv_wr(cap, wanted.maxRecvWr());
            ibv_qp_cap.max_send_sge(cap, wanted.maxSendSge());
            ibv_qp_cap.max_recv_sge(cap, wanted.maxRecvSge());
            ibv_qp_cap.max_inline_data(cap, wanted.maxInlineData());
            Native.rdmaCreateQp(connection.id(), ibPd.pd(), init);
            MemorySegment qp = rdma_cm_id.qp(connection.id().reinterpret(rdma_cm_id.sizeof()));
            queryCapabilities(arena, qp, cap);
            QueuePairAttributes granted = new QueuePairAttributes(
                    Math.max(1, ibv_qp_cap.max_send_wr(cap)), Math.max(1, ibv_qp_cap.max_recv_wr(cap)),
                    Math.max(1, ibv_qp_cap.max_send_sge(cap)), Math.max(1, ibv_qp_cap.max_recv_sge(cap)),
                    Math.max(0, ibv_qp_cap.max_inline_data(cap)), wanted.ird(), wanted.ord());
            IbverbsQueuePair queuePair = new IbverbsQueuePair(connection, device, qp, granted, ibSendCq, ibRecvCq);
            connection.attach(queuePair);
            return queuePair;
        }
    }

    /**
     * Replaces the sizes rdma_create_qp handed back with those the device reports for the new queue pair
     * ({@code ibv_query_qp(IBV_QP_CAP)}), when it reports larger ones. rxe rounds every queue up to a power of two
     * minus one (rxe_queue_init(): 8 receives asked for hold 15) but returns the sizes asked for from create
     * (rxe_qp_from_init() never writes them back); only its query says what the queue holds (rxe_qp_to_init()).
     */
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    private static void queryCapabilities(Arena arena, MemorySegment qp, MemorySegment cap) {
        MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
        MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
        if (ibverbs_h.ibv_query_qp(qp.reinterpret(ibv_qp.sizeof()), attr,
                ibverbs_h.IBV_QP_CAP(), init) != 0) {
            return; // keep what create said
        }
        MemorySegment actual = ibv_qp_attr.cap(attr);
        ibv_qp_cap.max_send_wr(cap, Math.max(ibv_qp_cap.max_send_wr(cap), ibv_qp_cap.max_send_wr(actual)));
        ibv_qp_cap.max_recv_wr(cap, Math.max(ibv_qp_cap.max_recv_wr(cap), ibv_qp_cap.max_recv_wr(actual)));
    }

    /** A {@code struct rdma_conn_param} with private data and IRD/ORD (responder resources/initiator depth). */
    static MemorySegment connParam(Arena arena, byte[] privateData, int ird, int ord) {
        MemorySegment param = arena.allocate(rdma_conn_param.layout());
        if (privateData.length > 0) {
            MemorySegment data = arena.allocate(privateData.length);
            data.copyFrom(MemorySegment.ofArray(privateData));
            rdma_conn_param.private_data(param, data);
        }
        rdma_conn_param.private_data_len(param, (byte) privateData.length);
        rdma_conn_param.responder_resources(param, (byte) Math.min(255, ird));
        rdma_conn_param.initiator_depth(param, (byte) Math.min(255, ord));
        rdma_conn_param.retry_count(param, RETRY_COUNT);
        rdma_conn_param.rnr_retry_count(param, RNR_RETRY_COUNT);
        return param;
    }

    /** Closes every listener and connection, then the event loop. */
    void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            connections.closeAll();
            List<Thread> pending;
            synchronized (teardowns) {
                pending = new ArrayList<>(teardowns);
                teardowns.clear();
            }
            for (Thread thread : pending) {
                try {
                    thread.join(30_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        } finally {
            CmEventLoop current;
            synchronized (this) {
                current = loop;
            }
            if (current != null) {
                current.close();
            }
        }
    }
}
