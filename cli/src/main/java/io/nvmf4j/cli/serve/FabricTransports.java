package io.nvmf4j.cli.serve;

import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import io.nvmf4j.target.tcp.TcpTransport;
import io.nvmf4j.target.tcp.TcpTransportOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.function.Consumer;

/**
 * The fabrics transports of one daemon, each opened when the first port of its type listens (nvmet registers a
 * transport when a port's {@code addr_trtype} names it, nvmet_enable_port()): a daemon with only TCP ports never
 * opens an RDMA device, one with only RDMA ports runs no TCP poll group. Each port goes to the transport its
 * trtype names; a port of a type no transport serves is refused.
 */
final class FabricTransports implements LiveTarget.Listeners, AutoCloseable {

    private final NvmeTarget target;
    private final RdmaTransportOptions rdmaOptions;
    private final TcpTransportOptions tcpOptions;
    private final TransportObserver observer;
    private final Consumer<RdmaTransport> rdmaOpened;
    private RdmaTransport rdma;
    private TcpTransport tcp;
    private boolean closed;

    /** {@code rdmaOpened} sees the RDMA transport once, when it opens (the metrics bind to its device). */
    FabricTransports(NvmeTarget target, RdmaTransportOptions rdmaOptions, TcpTransportOptions tcpOptions,
                     TransportObserver observer, Consumer<RdmaTransport> rdmaOpened) {
        this.target = target;
        this.rdmaOptions = rdmaOptions;
        this.tcpOptions = tcpOptions;
        this.observer = observer;
        this.rdmaOpened = rdmaOpened;
    }

    /**
     * Starts listening on {@code port} with the transport of its trtype; the address it is bound to. An RDMA
     * failure comes as the {@link io.nvmf4j.verbs.VerbsException} it is.
     */
    synchronized InetSocketAddress listenOn(Port port) throws IOException {
        if (closed) {
            throw new IOException("the daemon is stopping");
        }
        return switch (port.trtype()) {
            case DiscoveryLogEntry.TRTYPE_RDMA -> rdma().listen(port);
            case DiscoveryLogEntry.TRTYPE_TCP -> tcp().listen(port);
            default -> throw new IOException(port + ": transport type "
                    + DiscoveryLogEntry.trtypeName(port.trtype()) + " is not served (rdma, tcp)");
        };
    }

    @Override
    public void listen(Port port) throws IOException {
        var _ = listenOn(port);
    }

    @Override
    public synchronized void stopListening(Port port) {
        if (port.trtype() == DiscoveryLogEntry.TRTYPE_RDMA && rdma != null) {
            rdma.stopListening(port);
        } else if (port.trtype() == DiscoveryLogEntry.TRTYPE_TCP && tcp != null) {
            tcp.stopListening(port);
        }
    }

    /** The RDMA transport, or null while no RDMA port has listened. */
    synchronized RdmaTransport rdmaTransport() {
        return rdma;
    }

    /** The TCP transport, or null while no TCP port has listened. */
    synchronized TcpTransport tcpTransport() {
        return tcp;
    }

    private RdmaTransport rdma() throws IOException {
        if (rdma == null) {
            rdma = RdmaTransport.open(target, rdmaOptions, observer);
            rdmaOpened.accept(rdma);
        }
        return rdma;
    }

    private TcpTransport tcp() throws IOException {
        if (tcp == null) {
            tcp = TcpTransport.open(target, tcpOptions, observer);
        }
        return tcp;
    }

    /** Closes both transports: no new connections, the open ones end after the commands in flight. */
    @Override
    public synchronized void close() {
        closed = true;
        try {
            if (rdma != null) {
                rdma.close();
            }
        } finally {
            if (tcp != null) {
                tcp.close();
            }
        }
    }
}
