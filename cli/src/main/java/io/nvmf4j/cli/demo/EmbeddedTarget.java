package io.nvmf4j.cli.demo;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubsystemNamespace;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import io.nvmf4j.verbs.VerbsException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;

/**
 * A target inside this JVM: one subsystem with one RAM namespace on 127.0.0.1 over the chosen RDMA provider
 * (softiwarp by default, which needs nothing but the JVM). Used by {@code nvmf4j demo} and the CLI's end-to-end
 * tests; {@code nvmf4j serve} is the daemon.
 */
public final class EmbeddedTarget implements AutoCloseable {

    public static final Nqn SUBSYSTEM = Nqn.parse("nqn.2026-12.io.nvmf4j:demo");

    private final NvmeTarget target;
    private final RdmaTransport transport;
    private final InetSocketAddress address;
    private final long namespaceBytes;

    private EmbeddedTarget(NvmeTarget target, RdmaTransport transport, InetSocketAddress address, long bytes) {
        this.target = target;
        this.transport = transport;
        this.address = address;
        this.namespaceBytes = bytes;
    }

    /**
     * Starts listening on 127.0.0.1:{@code port} ({@code 0}: a free port chosen now, so the discovery log names the
     * real one).
     */
    public static EmbeddedTarget start(long namespaceBytes, int blockSize, String provider, int port, int pollGroups)
            throws IOException {
        int chosen = port != 0 ? port : freeLoopbackPort();
        NvmeTarget target = new NvmeTarget();
        RdmaTransport transport = null;
        try {
            Port p = Port.rdma(1, "127.0.0.1", Integer.toString(chosen)).build();
            Subsystem subsystem = Subsystem.builder(SUBSYSTEM).serial("NVMF4JDEMO0001").model("nvmf4j demo RAM disk")
                    .allowAnyHost(true).build();
            subsystem.addNamespace(SubsystemNamespace.of(1, RamBackend.allocate(namespaceBytes, blockSize)));
            target.addSubsystem(subsystem);
            target.addPort(p);
            p.addSubsystem(subsystem);
            RdmaTransportOptions options = RdmaTransportOptions.builder().provider(provider)
                    .pollGroups(pollGroups).spinBudget(Duration.ofNanos(200_000)).build();
            transport = RdmaTransport.open(target, options, TransportObserver.NONE);
            InetSocketAddress bound = transport.listen(p);
            return new EmbeddedTarget(target, transport, new InetSocketAddress("127.0.0.1", bound.getPort()),
                    namespaceBytes);
        } catch (VerbsException | RuntimeException e) {
            if (transport != null) {
                transport.close();
            }
            target.close();
            throw e;
        }
    }

    private static int freeLoopbackPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    public InetSocketAddress address() {
        return address;
    }

    public long namespaceBytes() {
        return namespaceBytes;
    }

    public String providerName() {
        return transport.device().name();
    }

    @Override
    public void close() {
        transport.close();
        target.close();
    }
}
