package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.uring.Errno;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.QueuePairState;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_qp;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_qp_attr;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_qp_init_attr;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;
import io.nvmf4j.verbs.provider.ProviderQueuePair;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;

/**
 * A reliable connected {@code ibv_qp} made by {@code rdma_create_qp} on a connection's rdma_cm id. Posting encodes
 * the request chain into native memory owned by this queue pair ({@link WorkRequestEncoder}) and calls the
 * provider's {@code post_send}/{@code post_recv} through method handles bound to this queue pair once. Once the
 * connection has ended (the queue pair is in ERROR), a post is completed with {@code WR_FLUSH_ERR} by the provider
 * itself ({@link LocalFlushes}): the kernel devices do not flush late posts of user-space queue pairs.
 */
final class IbverbsQueuePair extends ProviderQueuePair {
    private final IbverbsConnection connection;
    private final MemorySegment qp;
    private final int number;
    private final Arena arena = Arena.ofShared();
    private final MethodHandle postSend;
    private final MethodHandle postRecv;
    private final WorkRequestEncoder sendEncoder;
    private final WorkRequestEncoder recvEncoder;
    private final Object sendLock = new Object();
    private final Object recvLock = new Object();
    private volatile boolean destroyed;
    /** A request went to the device's send queue (guarded by sendLock): a drain marker has work to flush. */
    private boolean sent;
    /** The drain marker was tried (guarded by sendLock): once per queue pair. */
    private boolean drained;
    /** The drain marker is in the send queue: {@link #awaitDrained} waits for it. */
    private volatile boolean markerPosted;
    /** Longest wait for the drain marker at a close (rxe flushes it in the post itself; hardware within µs). */
    private static final long DRAIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final IbverbsDevice device;
    private final IbverbsCompletionQueue sendCq;
    private final IbverbsCompletionQueue recvCq;

    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    IbverbsQueuePair(IbverbsConnection connection, IbverbsDevice device, MemorySegment qp,
            QueuePairAttributes granted, IbverbsCompletionQueue sendCq, IbverbsCompletionQueue recvCq) {
        super(granted);
        this.connection = connection;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.qp = qp.reinterpret(ibv_qp.sizeof());
        this.number = ibv_qp.qp_num(this.qp);
        this.device = device;
        device.connectionsByQp().put(number, connection);
        this.postSend = ContextOps.bind(device.ops().postSend, qp);
        this.postRecv = ContextOps.bind(device.ops().postRecv, qp);
        int maxSgeRd = Math.max(1, device.attributes().maxSgeRd());
        this.sendEncoder = new WorkRequestEncoder(arena, true, granted.maxSendSge(), granted.maxSendWr(), maxSgeRd,
                granted.maxInlineData(), device.iwarp());
        this.recvEncoder = new WorkRequestEncoder(arena, false, granted.maxRecvSge(), granted.maxRecvWr(), maxSgeRd,
                0, false);
    }

    @Override
    public int number() {
        return number;
    }

    /**
     * The state as rdma_cm drives it: INIT until the connection is established, RTS while it is, ERROR once it
     * ended. {@code ibv_query_qp} refines RTS when the device reports a state (a local error moves the QP to ERROR
     * before the CM says anything); siw's query leaves {@code qp_state} unset (0 = RESET), so RESET is ignored.
     */
    @Override
    public QueuePairState state() {
        if (destroyed || connection.disconnectEvent() != null) {
            return QueuePairState.ERROR;
        }
        if (!connection.isConnected()) {
            return QueuePairState.INIT;
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(ibv_qp_attr.layout());
            MemorySegment init = call.allocate(ibv_qp_init_attr.layout());
            synchronized (sendLock) {
                if (destroyed) {
                    return QueuePairState.ERROR;
                }
                if (ibverbs_h.ibv_query_qp(qp, attr, ibverbs_h.IBV_QP_STATE(), init) != 0) {
                    return QueuePairState.RTS;
                }
            }
            int state = ibv_qp_attr.qp_state(attr);
            QueuePairState[] states = QueuePairState.values();
            return state > 0 && state < states.length ? states[state] : QueuePairState.RTS;
        }
    }

    @Override
    public void postSend(SendWorkRequest request) throws VerbsException {
        synchronized (sendLock) {
            checkNotDestroyed();
            if (connection.disconnectEvent() != null) {
                for (SendWorkRequest r = request; r != null; r = r.next()) {
                    sendCq.flushLocally(r.wrId(), switch (r.opcode()) {
                        case RDMA_WRITE -> WcOpcode.RDMA_WRITE;
                        case RDMA_READ -> WcOpcode.RDMA_READ;
                        default -> WcOpcode.SEND;
                    }, number);
                }
                return;
            }
            int length = sendEncoder.encode(request);
            int rc;
            try {
                rc = (int) postSend.invokeExact(sendEncoder.first(), sendEncoder.badWr);
            } catch (Throwable t) {
                throw new IllegalStateException("post_send failed", t);
            }
            sent = true; // also when only part of the chain went in
            if (rc != 0) {
                throw postFailure("ibv_post_send", rc, sendEncoder.badIndex(), length);
            }
        }
    }

    @Override
    public void postReceive(ReceiveWorkRequest request) throws VerbsException {
        synchronized (recvLock) {
            checkNotDestroyed();
            if (connection.disconnectEvent() != null) {
                for (ReceiveWorkRequest r = request; r != null; r = r.next()) {
                    recvCq.flushLocally(r.wrId(), WcOpcode.RECV, number);
                }
                return;
            }
            int length = recvEncoder.encode(request);
            int rc;
            try {
                rc = (int) postRecv.invokeExact(recvEncoder.first(), recvEncoder.badWr);
            } catch (Throwable t) {
                throw new IllegalStateException("post_recv failed", t);
            }
            if (rc != 0) {
                throw postFailure("ibv_post_recv", rc, recvEncoder.badIndex(), length);
            }
        }
    }

    private void checkNotDestroyed() throws VerbsException {
        if (destroyed) {
            throw new VerbsException(VerbsErrorCode.CLOSED, "queue pair " + number + " is destroyed");
        }
    }

    private static VerbsException postFailure(String call, int result, int posted, int length) {
        // verbs post calls return the errno itself (ENOMEM: queue full; EINVAL: bad request or state); rdma-core's
        // siw provider returns it negated (siw_post_send/siw_post_recv: rv = -ENOMEM), seen in the lab guest
        int rc = Math.abs(result);
        return new VerbsException(VerbsErrors.code(rc), call + " failed with " + Errno.name(rc) + ": " + posted + " of "
                + length + " chained work requests were posted (the rest were not)");
    }

    /**
     * Moves the queue pair to the error state ({@code ibv_modify_qp(IBV_QPS_ERR)}), which flushes every outstanding
     * work request into its CQ with {@code IBV_WC_WR_FLUSH_ERR}: the first step of every teardown, before
     * {@code rdma_disconnect}, like ib_drain_qp() in Linux ULPs. It must come first on siw: rdma_disconnect moves an
     * iWARP QP to CLOSING, and siw_qp_nextstate_from_close() flushes the send queue on a later move to ERROR only
     * when a send is in progress, never the ORQ, so an RDMA Read in flight would never complete (siw_qp.c, 6.1).
     * InfiniBand/RoCE: librdmacm's rdma_disconnect does this itself (ucma_modify_qp_err); doing it twice is harmless.
     * There a drain marker follows ({@link #postDrainMarker}), which the close waits for before it destroys the queue
     * pair, so that the flushes are in the CQ by then.
     */
    void toError() {
        synchronized (sendLock) {
            if (destroyed) {
                return;
            }
            int rc;
            try (Arena call = Arena.ofConfined()) {
                MemorySegment attr = call.allocate(ibv_qp_attr.layout());
                ibv_qp_attr.qp_state(attr, ibverbs_h.IBV_QPS_ERR());
                rc = ibverbs_h.ibv_modify_qp(qp, attr, ibverbs_h.IBV_QP_STATE());
            }
            if (rc != 0) {
                System.getLogger(IbverbsQueuePair.class.getName())
                        .log(System.Logger.Level.DEBUG, () -> "ibv_modify_qp(QP " + number + ", ERR): " + Errno.name(Math.abs(rc)));
            } else if (sent && !drained && !device.iwarp()) {
                drained = true;
                postDrainMarker();
            }
        }
    }

    /**
     * Posts a zero-length RDMA Write with the wr_id {@link DrainMarkers#WR_ID} on the queue pair now in ERROR, as
     * __ib_drain_sq() does (Linux verbs.c); the close waits for its flush completion ({@link #awaitDrained}) before
     * it destroys the queue pair. Kernel rxe flushes a send queue in its completer, which rxe_qp_error() only
     * schedules (a tasklet, which may also be busy with the Read's responses on another CPU); rdma_destroy_qp()
     * before it ran discarded the requests still queued, an RDMA Read in flight among them, without a completion
     * (rxe_qp_do_cleanup() clears qp->valid, and rxe_completer() flushes with notify only while it is set; once the
     * last reference is gone it does not run at all; rxe_qp.c, rxe_comp.c, 6.1). Only on InfiniBand/RoCE: siw
     * flushes on the move to ERROR and never completes a post on a queue pair in ERROR ({@link LocalFlushes}). The
     * marker takes a send queue slot and a CQ entry: with the send queue full the post fails and the close does not
     * wait. Caller holds sendLock.
     */
    private void postDrainMarker() {
        DrainMarkers markers = sendCq.drainMarkers();
        markers.expect(number);
        int rc;
        try {
            sendEncoder.encode(new SendWorkRequest(1).wrId(DrainMarkers.WR_ID).opcode(SendOpcode.RDMA_WRITE)
                    .signaled(true));
            rc = (int) postSend.invokeExact(sendEncoder.first(), sendEncoder.badWr);
        } catch (Throwable t) {
            rc = -1;
        }
        if (rc != 0) {
            markers.notPosted(number);
            int failed = rc;
            System.getLogger(IbverbsQueuePair.class.getName()).log(System.Logger.Level.DEBUG,
                    () -> "drain marker on QP " + number + " not posted: " + Errno.name(Math.abs(failed)));
        } else {
            markerPosted = true;
        }
    }

    /**
     * Waits (bounded) until the drain marker's flush completion was reaped, so that every request posted before it
     * has its completion in the CQ before the queue pair is destroyed. Called by the connection's close between the
     * disconnect and the destroy, holding no lock (the wait may poll the CQ, and a poller may end a connection).
     */
    void awaitDrained() {
        if (!markerPosted || destroyed) {
            return;
        }
        try {
            if (!sendCq.awaitDrainMarker(number, DRAIN_TIMEOUT_NANOS)) {
                System.getLogger(IbverbsQueuePair.class.getName()).log(System.Logger.Level.DEBUG,
                        () -> "QP " + number + ": no drain marker completion; destroying it anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Destroys the ibv_qp ({@code rdma_destroy_qp}); the connection calls this after disconnecting. */
    void destroy(MemorySegment id) {
        synchronized (sendLock) {
            synchronized (recvLock) {
                if (destroyed) {
                    return;
                }
                destroyed = true;
                device.connectionsByQp().remove(number, connection);
                ibverbs_h.rdma_destroy_qp(id);
                arena.close();
            }
        }
    }

    @Override
    public void close() {
        connection.close();
    }

    @Override
    public String toString() {
        return "ibverbs QP " + number;
    }
}
