package io.nvmf4j.verbs;

import java.net.InetSocketAddress;

/**
 * An incoming connection request ({@code RDMA_CM_EVENT_CONNECT_REQUEST}). Answer it exactly once with
 * {@link #accept} or {@link #reject}; a request left unanswered is rejected when the listener closes or after the
 * provider's connection setup timeout.
 */
public interface ConnectRequest {
    /** The private data the peer sent (for MPA v2, without the IRD/ORD words). */
    byte[] privateData();

    InetSocketAddress remoteAddress();

    InetSocketAddress localAddress();

    /** The peer's IRD (responder resources) from the request, or -1 if it did not say (MPA v1). */
    int peerIrd();

    /** The peer's ORD (initiator depth) from the request, or -1 if it did not say (MPA v1). */
    int peerOrd();

    /**
     * Accepts: creates the queue pair, sends the reply with {@code params.privateData()}, and returns the
     * connection. Post receives on the queue pair right away: the peer may send as soon as it sees the reply.
     */
    RdmaConnection accept(AcceptParams params) throws VerbsException;

    /** Rejects with private data (e.g. an NVMe-oF RDMA CM reject status) and closes the transport. */
    void reject(byte[] privateData) throws VerbsException;
}
