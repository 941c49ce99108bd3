package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;
import io.nvmf4j.verbs.provider.ProviderListener;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;

/** A listening rdma_cm id; connection requests queue up for {@link #accept(Duration)}. */
final class IbverbsListener extends ProviderListener<IbverbsConnectRequest> {

    private final IbverbsConnectionManager manager;
    private final MemorySegment id;
    private volatile InetSocketAddress localAddress;
    private volatile boolean closed;

    IbverbsListener(IbverbsConnectionManager manager, MemorySegment id) {
        super(IbverbsConnectRequest.class, Integer.MAX_VALUE); // rdma_listen's backlog bounds them in the kernel
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
            request.abandon();
            return;
        }
        // register before anyone can accept: the new id's events (ESTABLISHED, DISCONNECTED) go to the connection
        loop.register(event.id(), connection::onCmEvent);
        if (closed || !requests.offer(request)) {
            request.abandon();
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        requests.stopTaking();
        manager.forget(this);
        ibverbs_h.rdma_destroy_id(id);
        requests.close(); // refuses the queued and the handed-out unanswered requests (as softiwarp does)
    }

    @Override
    public String toString() {
        return "ibverbs listener on " + localAddress;
    }
}
