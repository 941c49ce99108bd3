package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import io.nvmf4j.testsupport.Await;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15 item 2: the initiator keeps an Asynchronous Event Request outstanding and follows Namespace Attribute
 * Changed notices from the Java target (which raises them as nvmet does: nvmet_ns_changed()). A namespace added,
 * resized or removed on the live target shows in {@link NvmeController#namespaces()} without a reconnect, and the
 * listener hears each change.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NamespaceEventsTest {

    static final Nqn SUBNQN = Nqn.parse("nqn.2026-12.io.nvmf4j:aen");
    static final long MIB = 1L << 20;

    private NvmeTarget target;
    private RdmaTransport transport;
    private InetSocketAddress address;
    private Subsystem subsystem;

    @BeforeEach
    void startTarget() throws Exception {
        target = new NvmeTarget();
        Port port = Port.rdma(1, "127.0.0.1", "0").build();
        subsystem = Subsystem.builder(SUBNQN).serial("NVMF4JAEN0001").allowAnyHost(true).build();
        subsystem.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(1, RamBackend.allocate(MIB, 512)));
        subsystem.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(2, RamBackend.allocate(MIB, 512)));
        target.addSubsystem(subsystem);
        target.addPort(port);
        port.addSubsystem(subsystem);
        transport = RdmaTransport.open(target, RdmaTransportOptions.builder().provider("softiwarp").pollGroups(1)
                .spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(4L << 20).completionQueueEntries(4096)
                .build(), TransportObserver.NONE);
        address = new InetSocketAddress("127.0.0.1", transport.listen(port).getPort());
    }

    @AfterEach
    void stopTarget() {
        transport.close();
        target.close();
    }

    /** A command timeout far shorter than the waits: the outstanding AER must not count as a stuck command. */
    private NvmeController connect() throws NvmfException {
        return NvmeController.connect(ConnectOptions.builder(address, SUBNQN).host(HostIdentity.generate())
                .provider("softiwarp").ioQueues(1).commandTimeout(Duration.ofSeconds(2)).build());
    }

    @Test
    void namespacesAddedResizedAndRemovedOnTheLiveTargetShowWithoutReconnecting() throws Exception {
        try (NvmeController c = connect()) {
            LinkedBlockingQueue<NamespaceChange> heard = new LinkedBlockingQueue<>();
            c.onNamespaceChange(heard::add);
            assertEquals(List.of(1L, 2L), nsids(c));

            // added: nsid 3, 2 MiB of 4 KiB blocks
            subsystem.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(3, RamBackend.allocate(2 * MIB, 4096)));
            NamespaceChange added = heard.poll(10, TimeUnit.SECONDS);
            assertTrue(added != null, "no change heard within 10 s of adding nsid 3");
            assertEquals(List.of(3L), added.added().stream().map(Namespace::nsid).toList());
            assertEquals(List.of(3L), added.reported(), "the Changed Namespace List named nsid 3");
            assertEquals(List.of(1L, 2L, 3L), nsids(c));
            Namespace three = c.namespace(3).orElseThrow();
            assertEquals(4096, three.blockSize());
            assertEquals(512, three.blockCount());
            // and it carries I/O at once
            MemorySegment data = MemorySegment.ofArray(new byte[4096]);
            data.fill((byte) 0x5A);
            three.write(7, 1, data);
            MemorySegment back = MemorySegment.ofArray(new byte[4096]);
            three.read(7, 1, back);
            assertArrayEquals(data.toArray(ValueLayout.JAVA_BYTE), back.toArray(ValueLayout.JAVA_BYTE));

            // resized: nsid 1 grows from 1 MiB to 4 MiB (the target swaps the backend: nvmet_ns_revalidate())
            subsystem.replaceNamespace(io.nvmf4j.target.SubsystemNamespace.of(1, RamBackend.allocate(4 * MIB, 512)));
            NamespaceChange resized = heard.poll(10, TimeUnit.SECONDS);
            assertTrue(resized != null, "no change heard within 10 s of resizing nsid 1");
            assertEquals(List.of(1L), resized.resized().stream().map(Namespace::nsid).toList());
            assertEquals(4 * MIB / 512, c.namespace(1).orElseThrow().blockCount());
            assertEquals(4 * MIB, c.namespace(1).orElseThrow().capacityBytes());

            // removed: nsid 2
            subsystem.removeNamespace(2).backend().close();
            NamespaceChange removed = heard.poll(10, TimeUnit.SECONDS);
            assertTrue(removed != null, "no change heard within 10 s of removing nsid 2");
            assertEquals(List.of(2L), removed.removed().stream().map(Namespace::nsid).toList());
            assertEquals(List.of(1L, 3L), nsids(c));
            assertEquals(ControllerState.LIVE, c.state(), "no reconnect on the way");
        }
    }

    @Test
    void theOutstandingEventRequestOutlivesTheCommandTimeout() throws Exception {
        try (NvmeController c = connect()) {
            // three command timeouts with nothing to report: the AER must still be outstanding, not a timeout
            // that fails the admin queue and reconnects (the controller logs each lost connection)
            List<String> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.logging.Logger log = java.util.logging.Logger.getLogger(NvmeController.class.getName());
            java.util.logging.Handler watch = new java.util.logging.Handler() {
                @Override
                public void publish(java.util.logging.LogRecord r) {
                    if (r.getMessage() != null && r.getMessage().contains("connection lost")) {
                        lost.add(r.getMessage());
                    }
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            };
            log.addHandler(watch);
            try {
                Thread.sleep(6500);
            } finally {
                log.removeHandler(watch);
            }
            assertEquals(ControllerState.LIVE, c.state());
            assertEquals(List.of(), lost, "the controller never lost its connection");
            subsystem.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(5, RamBackend.allocate(MIB, 512)));
            await(() -> c.namespace(5).isPresent(), "nsid 5 visible after the event");
        }
    }

    /**
     * The request dies with its connection; after the reconnect (nvme_start_ctrl()) the host rescans, finding what
     * changed while it was away, and arms a new request, so later events arrive again.
     */
    @Test
    void afterAReconnectTheHostRescansAndHearsEventsAgain() throws Exception {
        int fixed;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            fixed = probe.getLocalPort();
        }
        Port again = Port.rdma(2, "127.0.0.1", Integer.toString(fixed)).build();
        target.addPort(again);
        again.addSubsystem(subsystem);
        transport.listen(again);
        try (NvmeController c = NvmeController.connect(ConnectOptions.builder(
                new InetSocketAddress("127.0.0.1", fixed), SUBNQN).host(HostIdentity.generate()).provider("softiwarp")
                .ioQueues(1).commandTimeout(Duration.ofSeconds(5)).reconnectDelay(Duration.ofMillis(200))
                .ctrlLossTimeout(Duration.ofSeconds(30)).build())) {
            LinkedBlockingQueue<NamespaceChange> heard = new LinkedBlockingQueue<>();
            c.onNamespaceChange(heard::add);
            transport.close(); // every connection ends
            subsystem.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(3, RamBackend.allocate(MIB, 512)));
            transport = RdmaTransport.open(target, RdmaTransportOptions.builder().provider("softiwarp").pollGroups(1)
                    .spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(4L << 20).completionQueueEntries(4096)
                    .build(), TransportObserver.NONE);
            transport.listen(again);
            NamespaceChange whileAway = heard.poll(20, TimeUnit.SECONDS);
            assertTrue(whileAway != null, "no rescan after the reconnect");
            assertEquals(List.of(3L), whileAway.added().stream().map(Namespace::nsid).toList());
            assertEquals(List.of(), whileAway.reported(), "found by the rescan, not named by an event");
            subsystem.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(4, RamBackend.allocate(MIB, 512)));
            NamespaceChange later = heard.poll(10, TimeUnit.SECONDS);
            assertTrue(later != null, "no event after the reconnect: the request was not sent again");
            assertEquals(List.of(4L), later.reported());
            assertEquals(List.of(1L, 2L, 3L, 4L), nsids(c));
        }
    }

    @Test
    void aRescanOnRequestFindsWhatChanged() throws Exception {
        try (NvmeController c = connect()) {
            assertTrue(c.rescanNamespaces().isEmpty(), "nothing changed yet");
            assertEquals(List.of(1L, 2L), nsids(c));
        }
    }

    private static List<Long> nsids(NvmeController c) {
        return c.namespaces().stream().map(Namespace::nsid).toList();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        Await.until(condition, Duration.ofSeconds(10), what);
    }
}
