package io.nvmf4j.cli;

import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;

/**
 * A target serving the given subsystems over softiwarp on one poll group at a free loopback port, for tests whose
 * subsystems {@code EmbeddedTarget} cannot build (another name, a host allow list). The port is chosen before the
 * listener opens so that the discovery log names the port the host really reaches.
 */
public final class LoopbackTarget implements AutoCloseable {

    private final NvmeTarget target;
    private final RdmaTransport transport;
    private final int port;

    private LoopbackTarget(NvmeTarget target, RdmaTransport transport, int port) {
        this.target = target;
        this.transport = transport;
        this.port = port;
    }

    /** Starts serving {@code subsystems}; closes what it opened when a step fails. */
    public static LoopbackTarget serving(Subsystem... subsystems) throws IOException {
        NvmeTarget target = new NvmeTarget();
        RdmaTransport transport = null;
        try {
            for (Subsystem s : subsystems) {
                target.addSubsystem(s);
            }
            transport = RdmaTransport.open(target, RdmaTransportOptions.builder().provider("softiwarp")
                    .pollGroups(1).spinBudget(Duration.ofNanos(20_000)).build(), TransportObserver.NONE);
            Port p = Port.rdma(1, "127.0.0.1", Integer.toString(freeLoopbackPort())).build();
            target.addPort(p);
            for (Subsystem s : subsystems) {
                p.addSubsystem(s);
            }
            int port = transport.listen(p).getPort();
            return new LoopbackTarget(target, transport, port);
        } catch (IOException | RuntimeException e) {
            if (transport != null) {
                transport.close();
            }
            target.close();
            throw e;
        }
    }

    private static int freeLoopbackPort() {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    public int port() {
        return port;
    }

    /** {@code args} with the fabric options that reach this target. */
    public String[] at(String... args) {
        return FabricArgs.at(port, args);
    }

    @Override
    public void close() {
        transport.close();
        target.close();
    }
}
