package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.provider.ProviderConnectRequest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * An {@code RDMA_CM_EVENT_CONNECT_REQUEST}: the new id (already routed to its connection's event handler), the
 * peer's private data and read depths. The one-shot answer and the private-data limit ({@code rdma_conn_param}'s
 * one-byte length) are {@link ProviderConnectRequest}'s; {@code rdma_accept}/{@code rdma_reject} are here.
 */
final class IbverbsConnectRequest extends ProviderConnectRequest {
    private final IbverbsConnectionManager manager;
    private final IbverbsConnection connection;

    IbverbsConnectRequest(IbverbsConnectionManager manager, IbverbsConnection connection, CmEvent event) {
        // rdma_cm hands the request's depths over from the listener's point of view: initiator_depth is the
        // peer's IRD (how many Reads we may have outstanding towards it), responder_resources the peer's ORD (IB:
        // cm_format_req_event() swaps the REQ fields; iWARP: iw_conn_req_handler()). Seen on siw0: a connector
        // with IRD 8 / ORD 4 arrived as responder_resources 4.
        super(event.privateData(), SocketAddresses.local(event.id()), SocketAddresses.peer(event.id()),
                event.initiatorDepth(), event.responderResources(), IbverbsConnectionManager.MAX_PRIVATE_DATA,
                "rdma_conn_param");
        this.manager = manager;
        this.connection = connection;
    }

    @Override
    protected RdmaConnection acceptClaimed(AcceptParams params) throws VerbsException {
        InetSocketAddress remote = remoteAddress();
        IbverbsDevice device = manager.device();
        boolean done = false;
        try (Arena arena = Arena.ofConfined()) {
            manager.checkSameDevice(connection.id(), remote);
            IbverbsConnectionManager owner = manager.ownerFor(params.pd());
            if (owner != manager) {
                owner.adopt(connection);
            }
            IbverbsQueuePair qp = owner.createQueuePair(connection, params.pd(), params.sendCq(), params.recvCq(),
                    params.qpAttributes());
            IbverbsConnectionManager.runSetup(params.setup(), qp);
            // RFC 6581 / IB CM: answer no more Reads than the peer will issue, issue no more than it answers
            int ird = Math.min(Math.min(params.qpAttributes().ird(), device.attributes().maxQpRdAtom()), peerOrd());
            int ord = Math.min(Math.min(params.qpAttributes().ord(), device.attributes().maxQpInitRdAtom()),
                    peerIrd());
            qp.readDepths(ird, ord);
            Native.rdmaAccept(connection.id(), IbverbsConnectionManager.connParam(arena, params.privateData(), ird,
                    ord));
            owner.track(connection);
            long deadline = System.nanoTime() + device.config().acceptTimeout().toNanos();
            IbverbsConnectionManager.expect(connection, deadline, remote, "accept",
                    io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h.RDMA_CM_EVENT_ESTABLISHED());
            connection.peerPrivateData(privateData());
            connection.finishSetup();
            done = true;
            return connection;
        } catch (InterruptedException e) {
            throw IbverbsConnectionManager.interrupted("accepting " + remote, e);
        } finally {
            if (!done) {
                connection.destroy();
            }
        }
    }

    @Override
    protected void rejectClaimed(byte[] bytes) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = MemorySegment.NULL;
            if (bytes.length > 0) {
                segment = arena.allocate(bytes.length);
                segment.copyFrom(MemorySegment.ofArray(bytes));
            }
            Native.rdmaReject(connection.id(), segment, (byte) bytes.length);
        } finally {
            connection.destroy();
        }
    }

    /** Rejects without private data, ignoring failures (listener closing, nobody accepted). */
    @Override
    protected void refuseClaimed() {
        try {
            rejectClaimed(new byte[0]);
        } catch (VerbsException e) {
            // the peer learns of the end anyway once the id is destroyed
        }
    }
}
