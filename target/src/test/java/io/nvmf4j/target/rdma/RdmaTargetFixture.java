package io.nvmf4j.target.rdma;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.target.Namespace;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.backend.BackendSettings;
import io.nvmf4j.target.backend.FileBackend;
import io.nvmf4j.target.backend.NamespaceBackend;
import io.nvmf4j.target.backend.RamBackend;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A target over softiwarp on 127.0.0.1 (ephemeral port): one subsystem allowing {@link #HOST}, namespace 1 a 1 MiB
 * RAM disk with 512-byte blocks, namespace 2 a 1 MiB file with 4096-byte blocks; one poll group, 4 MiB of buffers.
 */
final class RdmaTargetFixture implements AutoCloseable {

    static final String SUBNQN = "nqn.2026-12.io.nvmf4j:test:rdma";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555";
    static final String OTHER_HOST = "nqn.2014-08.org.nvmexpress:uuid:99999999-2222-3333-4444-555555555555";
    static final long NS_BYTES = 1 << 20;

    final NvmeTarget target = new NvmeTarget();
    final Port port;
    final Subsystem subsystem;
    final RamBackend ram;
    final FileBackend file;
    final RdmaTransport transport;
    final InetSocketAddress address;

    RdmaTargetFixture(Path dir) throws Exception {
        this(dir, 8);
    }

    RdmaTargetFixture(Path dir, int mdts) throws Exception {
        this(dir, mdts, TransportObserver.NONE);
    }

    RdmaTargetFixture(Path dir, int mdts, TransportObserver observer) throws Exception {
        this(dir, mdts, observer, new RdmaTransportOptions("softiwarp", null, 1, Duration.ofNanos(20_000),
                4L << 20, 4096, true));
    }

    RdmaTargetFixture(Path dir, int mdts, TransportObserver observer, RdmaTransportOptions options)
            throws Exception {
        this(dir, mdts, observer, options, BackendSettings.DEFAULT, null);
    }

    /**
     * With the backend I/O settings given and, when {@code extra} is not null, that backend as namespace 3.
     */
    RdmaTargetFixture(Path dir, int mdts, TransportObserver observer, RdmaTransportOptions options,
                      BackendSettings backend, NamespaceBackend extra) throws Exception {
        port = Port.rdma(1, "127.0.0.1", "0").mdts(mdts).build();
        subsystem = Subsystem.builder(Nqn.parse(SUBNQN)).serial("NVMF4JRDMA0001").model("nvmf4j rdma test")
                .allowHost(HOST).build();
        ram = RamBackend.allocate(NS_BYTES, 512);
        subsystem.addNamespace(Namespace.of(1, ram));
        Path img = dir.resolve("ns2.img");
        try {
            Files.write(img, new byte[(int) NS_BYTES]);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        file = FileBackend.open(img, 4096);
        subsystem.addNamespace(Namespace.of(2, file));
        if (extra != null) {
            subsystem.addNamespace(Namespace.of(3, extra));
        }
        target.backendSettings(backend);
        target.addSubsystem(subsystem);
        target.addPort(port);
        port.addSubsystem(subsystem);
        transport = RdmaTransport.open(target, options, observer);
        InetSocketAddress bound = transport.listen(port);
        address = new InetSocketAddress("127.0.0.1", bound.getPort());
    }

    @Override
    public void close() {
        transport.close();
        target.close();
    }
}
