package io.nvmf4j.target;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.target.backend.RamBackend;

/** A target with one RDMA port and one subsystem holding a RAM namespace; hosts are allowed explicitly. */
final class TargetFixture implements AutoCloseable {

    static final String SUBNQN = "nqn.2026-12.io.nvmf4j:test:ram";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555";
    static final String OTHER_HOST = "nqn.2014-08.org.nvmexpress:uuid:99999999-2222-3333-4444-555555555555";

    final NvmeTarget target = new NvmeTarget();
    final Port port = Port.rdma(1, "127.0.0.1", "4420").build();
    final Subsystem subsystem;

    TargetFixture() {
        this(Subsystem.builder(Nqn.parse(SUBNQN)).serial("NVMF4JSERIAL01").model("nvmf4j test").allowHost(HOST));
    }

    TargetFixture(Subsystem.Builder builder) {
        subsystem = builder.build();
        subsystem.addNamespace(SubsystemNamespace.of(1, RamBackend.allocate(1 << 20, 512),
                SubsystemNamespace.parseNguid("0123456789abcdef0011223344556677"),
                java.util.UUID.fromString("6c9d8f0e-1a2b-4c3d-8e9f-0a1b2c3d4e5f"),
                new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
        target.addSubsystem(subsystem);
        target.addPort(port);
        port.addSubsystem(subsystem);
    }

    LoopHost host() {
        return new LoopHost(target, port, HOST);
    }

    LoopHost host(String hostNqn) {
        return new LoopHost(target, port, hostNqn);
    }

    @Override
    public void close() {
        target.close();
    }
}
