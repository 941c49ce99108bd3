package io.nvmf4j.verbs;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The connection manager of a device ({@code rdma_cm}). For iWARP, connection setup is the MPA exchange
 * (RFC 5044 section 7, RFC 6581) carrying private data and the IRD/ORD negotiation.
 */
public interface ConnectionManager {
    /**
     * Listens for connection requests ({@code rdma_listen}).
     *
     * @param local   the address to bind (port 0: any free port, see {@link RdmaListener#localAddress()})
     * @param backlog pending connection requests kept
     */
    RdmaListener listen(InetSocketAddress local, int backlog) throws VerbsException;

    /**
     * Connects to a listener ({@code rdma_connect}): creates the queue pair, performs the connection setup with
     * {@code params.privateData()}, and returns once the queue pair is ready to send.
     *
     * @throws ConnectionRejectedException when the peer rejected the request (with its private data)
     * @throws VerbsException              TIMED_OUT if the peer did not answer within {@code timeout}, or another
     *                                     failure
     */
    RdmaConnection connect(InetSocketAddress remote, ConnectParams params, Duration timeout) throws VerbsException;
}
