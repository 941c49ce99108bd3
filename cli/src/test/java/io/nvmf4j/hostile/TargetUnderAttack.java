package io.nvmf4j.hostile;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubsystemNamespace;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.RejectReason;
import io.nvmf4j.target.rdma.TransportObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The target the suite attacks: what {@code nvmf4j serve --ram} runs (default transport options: one poll group,
 * 32 MiB of buffers, 16384 CQ entries), with a 16 MiB RAM namespace of 512-byte blocks, on 127.0.0.1 over softiwarp,
 * any host allowed (as {@code serve} without {@code --allow-host}).
 */
final class TargetUnderAttack implements AutoCloseable {

    static final String SUBNQN = "nqn.2026-12.io.nvmf4j:hostile";
    static final long NAMESPACE_BYTES = 16L << 20;

    private final NvmeTarget target;
    private final RdmaTransport transport;
    final InetSocketAddress address;
    /** Every peer the transport refused or ended, by reason ({@code nvmf4j_rejected_total}). */
    final java.util.Map<RejectReason, java.util.concurrent.atomic.AtomicInteger> rejected;

    private TargetUnderAttack(NvmeTarget target, RdmaTransport transport, InetSocketAddress address,
            java.util.Map<RejectReason, java.util.concurrent.atomic.AtomicInteger> rejected) {
        this.target = target;
        this.transport = transport;
        this.address = address;
        this.rejected = rejected;
    }

    NvmeTarget target() {
        return target;
    }

    int rejected(RejectReason reason) {
        return rejected.get(reason).get();
    }

    static TargetUnderAttack start() throws IOException {
        return start(io.nvmf4j.protocol.ControllerId.MAX);
    }

    /** As {@link #start()}, the subsystem's controller IDs 1..{@code cntlidMax} (nvmet's attr_cntlid_max). */
    static TargetUnderAttack start(int cntlidMax) throws IOException {
        java.util.Map<RejectReason, java.util.concurrent.atomic.AtomicInteger> rejected =
                new java.util.EnumMap<>(RejectReason.class);
        for (RejectReason r : RejectReason.values()) {
            rejected.put(r, new java.util.concurrent.atomic.AtomicInteger());
        }
        TransportObserver counting = new TransportObserver() {

            @Override
            public void peerRejected(RejectReason reason) {
                rejected.get(reason).incrementAndGet();
            }
        };
        NvmeTarget target = new NvmeTarget();
        RdmaTransport transport = null;
        try {
            Port port = Port.rdma(1, "127.0.0.1", "0").build();
            Subsystem subsystem = Subsystem.builder(Nqn.parse(SUBNQN)).serial("NVMF4JHOSTILE01")
                    .model("nvmf4j hostile-peer suite").allowAnyHost(true).controllerIdRange(1, cntlidMax).build();
            subsystem.addNamespace(SubsystemNamespace.of(1, RamBackend.allocate(NAMESPACE_BYTES, 512)));
            target.addSubsystem(subsystem);
            target.addPort(port);
            port.addSubsystem(subsystem);
            transport = RdmaTransport.open(target, RdmaTransportOptions.builder().provider("softiwarp")
                    .pollGroups(1).spinBudget(Duration.ofNanos(50_000)).build(), counting);
            InetSocketAddress bound = transport.listen(port);
            return new TargetUnderAttack(target, transport, new InetSocketAddress("127.0.0.1", bound.getPort()),
                    rejected);
        } catch (IOException | RuntimeException e) {
            if (transport != null) {
                transport.close();
            }
            target.close();
            throw e;
        }
    }

    @Override
    public void close() {
        transport.close();
        target.close();
    }
}
