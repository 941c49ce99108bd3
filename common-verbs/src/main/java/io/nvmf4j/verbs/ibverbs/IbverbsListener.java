package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A listening rdma_cm id; connection requests queue up for {@link #accept(Duration)}. */
final class IbverbsListener implements RdmaListener {

    private final IbverbsConnectionManager manager;
    private final MemorySegment id;
    private final LinkedBlockingQueue<Object> requests = new LinkedBlockingQueue<>();
    private final Object closedToken = new Object();
    /** Requests accept() handed out: closing the listener refuses those nobody answered (as softiwarp does). */
    private final java.util.Set<IbverbsConnectRequest> handedOut = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile InetSocketAddress localAddress;
    private volatile boolean closed;

    IbverbsListener(IbverbsConnectionManager manager, MemorySegment id) {
        this.manager = manager;
        this.id = id;
    }

    MemorySegment id() {
        return id;
    }

    void bound(InetSocketAddress address) {
        this.localAddress = address;
    }

    /** CM thread: a CONNECT_REQUEST for this listener. */
    void onCmEvent(CmEvent event) {
        if (!event.is(ibverbs_h.RDMA_CM_EVENT_CONNECT_REQUEST())) {
            return; // e.g. DEVICE_REMOVAL on the listening id
        }
        IbverbsConnection connection = new IbverbsConnection(manager, event.id());
        IbverbsConnectRequest request = new IbverbsConnectRequest(manager, connection, event);
        CmEventLoop loop;
        try {
            loop = manager.loop();
        } catch (VerbsException e) {
            request.rejectQuietly();
            return;
        }
        // register before anyone can accept: the new id's events (ESTABLISHED, DISCONNECTED) go to the connection
        loop.register(event.id(), connection::onCmEvent);
        if (closed) {
            request.rejectQuietly();
            return;
        }
        requests.add(request);
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public ConnectRequest accept(Duration timeout) throws VerbsException, InterruptedException {
        if (closed) {
            throw new VerbsException(VerbsErrorCode.CLOSED, "listener on " + localAddress + " is closed");
        }
        Object next = requests.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (next == closedToken) {
            requests.add(closedToken); // wake other waiters too
            throw new VerbsException(VerbsErrorCode.CLOSED, "listener on " + localAddress + " is closed");
        }
        if (next instanceof IbverbsConnectRequest request) {
            handedOut.removeIf(IbverbsConnectRequest::isAnswered); // the set holds only the unanswered
            handedOut.add(request);
        }
        return (ConnectRequest) next;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        manager.forget(this);
        ibverbs_h.rdma_destroy_id(id);
        Object pending;
        while ((pending = requests.poll()) != null) {
            if (pending instanceof IbverbsConnectRequest request) {
                request.rejectQuietly();
            }
        }
        requests.add(closedToken);
        for (IbverbsConnectRequest request : handedOut) {
            if (!request.isAnswered()) {
                request.rejectQuietly();
            }
        }
        handedOut.clear();
    }

    @Override
    public String toString() {
        return "ibverbs listener on " + localAddress;
    }
}
