package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.uring.Errno;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePair;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WorkCompletion;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;
import io.nvmf4j.verbs.provider.DisconnectListeners;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;

/**
 * One rdma_cm id and its queue pair, on either side. Until the connection is established its CM events queue up
 * for the thread that connects or accepts ({@link #awaitEvent}); afterwards the CM thread handles them here:
 * {@code RDMA_CM_EVENT_DISCONNECTED} ends the connection, and {@code rdma_disconnect} moves the queue pair to the
 * error state (librdmacm does that for InfiniBand/RoCE; the kernel does it for iWARP), which flushes every
 * outstanding work request with {@code IBV_WC_WR_FLUSH_ERR}.
 */
final class IbverbsConnection implements RdmaConnection {
    private static final Logger LOG = System.getLogger(IbverbsConnection.class.getName());

    private volatile IbverbsConnectionManager manager;
    private final MemorySegment id;
    private final Queue<CmEvent> setupEvents = new ArrayDeque<>();
    private final DisconnectListeners listeners = new DisconnectListeners(LOG);
    private volatile IbverbsQueuePair queuePair;
    private volatile byte[] peerPrivateData = new byte[0];
    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress remoteAddress;
    private boolean established;
    private volatile DisconnectEvent ended;
    private boolean closed;
    private boolean destroyed;

    IbverbsConnection(IbverbsConnectionManager manager, MemorySegment id) {
        this.manager = manager;
        this.id = id;
    }

    MemorySegment id() {
        return id;
    }

    IbverbsConnectionManager manager() {
        return manager;
    }

    /** The connection now belongs to another device object's connection manager (see adopt). */
    void manager(IbverbsConnectionManager owner) {
        this.manager = owner;
    }

    void attach(IbverbsQueuePair queuePair) {
        this.queuePair = queuePair;
    }

    void peerPrivateData(byte[] data) {
        this.peerPrivateData = data.clone();
    }

    /** Called on the CM thread for every event of this id. */
    void onCmEvent(CmEvent event) {
        synchronized (this) {
            if (!established) {
                setupEvents.add(event);
                notifyAll();
                return;
            }
        }
        handleLive(event);
    }

    /**
     * Waits for the next setup event (connecting or accepting thread).
     *
     * @return the event, or null when the deadline passes
     */
    synchronized CmEvent awaitEvent(long deadlineNanos) throws InterruptedException {
        while (setupEvents.isEmpty()) {
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
                return null;
            }
            TimeUnit.NANOSECONDS.timedWait(this, remaining);
        }
        return setupEvents.poll();
    }

    /** Marks the connection established; events that queued up behind ESTABLISHED are handled now. */
    void established() {
        localAddress = SocketAddresses.local(id);
        remoteAddress = SocketAddresses.peer(id);
        List<CmEvent> later;
        synchronized (this) {
            established = true;
            later = new ArrayList<>(setupEvents);
            setupEvents.clear();
        }
        later.forEach(this::handleLive);
    }

    private void handleLive(CmEvent event) {
        int type = event.type();
        if (type == ibverbs_h.RDMA_CM_EVENT_DISCONNECTED()) {
            // first: moves an InfiniBand/RoCE QP to ERROR (flushing it) and answers the peer's DREQ, so that
            // listeners see the flushes coming
            disconnectNative();
            end(new DisconnectEvent(DisconnectEvent.Cause.PEER_DISCONNECT, "the peer disconnected (" + event + ")"));
        } else if (type == ibverbs_h.RDMA_CM_EVENT_DEVICE_REMOVAL()) {
            disconnectNative();
            end(new DisconnectEvent(DisconnectEvent.Cause.TRANSPORT_ERROR, "the RDMA device was removed"));
        } else if (type == ibverbs_h.RDMA_CM_EVENT_CONNECT_ERROR() || type == ibverbs_h.RDMA_CM_EVENT_UNREACHABLE()) {
            disconnectNative();
            end(new DisconnectEvent(DisconnectEvent.Cause.TRANSPORT_ERROR, "connection error: " + event));
        } else {
            LOG.log(Level.DEBUG, () -> "connection " + this + ": " + event);
        }
    }

    /** Ends the connection once: records why and runs the listeners. */
    private void end(DisconnectEvent event) {
        synchronized (this) {
            if (ended != null) {
                return;
            }
            ended = event;
        }
        listeners.end(event);
    }

    @Override
    public QueuePair queuePair() {
        return queuePair;
    }

    @Override
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public boolean isConnected() {
        synchronized (this) {
            return established && ended == null;
        }
    }

    @Override
    public void onDisconnect(Consumer<DisconnectEvent> listener) {
        listeners.add(listener);
    }

    @Override
    public DisconnectEvent disconnectEvent() {
        return ended;
    }

    @Override
    public void disconnect() {
        synchronized (this) {
            if (ended != null || closed) {
                return;
            }
        }
        end(new DisconnectEvent(DisconnectEvent.Cause.LOCAL_DISCONNECT, "disconnected by this side"));
        disconnectNative();
    }

    /**
     * {@code rdma_disconnect}, unless the id is already destroyed: the CM thread may handle an event of this
     * connection while the application closes it, and the lock keeps the id alive for the call.
     */
    private synchronized void disconnectNative() {
        if (destroyed) {
            return;
        }
        IbverbsQueuePair qp = queuePair;
        if (qp != null) {
            qp.toError(); // flush first (see toError: on siw a disconnect alone can lose an in-flight Read)
        }
        int errno = Native.rdmaDisconnect(id);
        if (errno != 0) {
            LOG.log(Level.DEBUG, () -> "rdma_disconnect: " + Errno.name(errno));
        }
    }

    /**
     * A CQ saw an error completion (other than a flush) of this connection's queue pair: the connection has ended;
     * rdma_disconnect (on another thread, off the polling thread) tells the peer.
     */
    void onErrorCompletion(WorkCompletion completion) {
        synchronized (this) {
            if (ended != null || closed) {
                return;
            }
        }
        end(new DisconnectEvent(DisconnectEvent.Cause.TRANSPORT_ERROR, "error completion " + completion));
        Thread.ofVirtual().name("ibverbs-disconnect").start(this::disconnectNative);
    }

    /**
     * The device reported the queue pair broken by an async event ({@code IBV_EVENT_QP_FATAL} and kin, read on the
     * device's event thread): the connection has ended, and rdma_disconnect tells the peer.
     */
    void onQueuePairError(String eventName) {
        synchronized (this) {
            if (ended != null || closed) {
                return;
            }
        }
        end(new DisconnectEvent(DisconnectEvent.Cause.TRANSPORT_ERROR, "the device reported " + eventName
                + " on QP " + (queuePair != null ? queuePair.number() : -1)));
        disconnectNative();
    }

    /**
     * The last step of connect and accept, after ESTABLISHED: live from here on (events handled here), unless it
     * ended during setup, which throws.
     */
    void finishSetup() throws VerbsException {
        established();
        checkNotEnded();
    }

    /** Throws if the connection ended during setup (used after waiting for ESTABLISHED). */
    void checkNotEnded() throws VerbsException {
        DisconnectEvent event = ended;
        if (event != null) {
            throw new VerbsException(VerbsErrorCode.CONNECTION_RESET, "connection ended: " + event.detail());
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        disconnect();
        synchronized (this) {
            closed = true;
        }
        IbverbsQueuePair qp = queuePair;
        if (qp != null) {
            qp.awaitDrained(); // the flushes of what was outstanding reach the CQ before the queue pair goes
        }
        destroy();
    }

    /** Destroys the queue pair and the id (also for connections that never got established). */
    void destroy() {
        synchronized (this) {
            if (destroyed) {
                return;
            }
            destroyed = true;
            closed = true;
        }
        IbverbsQueuePair qp = queuePair;
        if (qp != null) {
            qp.destroy(id);
        }
        manager.forget(this);
        ibverbs_h.rdma_destroy_id(id);
    }

    @Override
    public String toString() {
        return "ibverbs connection " + localAddress + " -> " + remoteAddress
                + (queuePair != null ? " (QP " + queuePair.number() + ")" : "");
    }
}
