package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.Provider;
import io.nvmf4j.config.QuickConfig;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.NamespaceChange;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.protocol.Nqn;
import java.io.RandomAccessFile;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Changes made on a running daemon reach a connected nvmf4j host the standard way, without it reconnecting: the
 * Changed Namespace List log (NVMe Base 2.0, 5.16.1.5) names the namespace added, resized or removed, Identify
 * shows the new state; a host whose access is taken away, or whose port is removed, is disconnected.
 *
 * <p>The nvmf4j initiator keeps an Asynchronous Event Request outstanding and, on the Namespace Attribute Changed
 * notice, reads that log and rescans (Linux nvme_complete_async_event() → nvme_scan_work()): its namespaces()
 * follow the daemon.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LiveChangesReachHostsTest {

    static final String NQN = "nqn.2026-12.io.nvmf4j:live";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555";

    @TempDir
    Path dir;

    private static TargetDaemon daemon(int port) throws Exception {
        return TargetDaemon.start(QuickConfig.builder().nqn(NQN).ram("1M").allowHost(HOST)
                .listen("127.0.0.1:" + port).provider(Provider.SOFTIWARP).pollGroups(1).build(), false);
    }

    private static NvmeController connect(int port) throws NvmfException {
        return NvmeController.connect(ConnectOptions.builder(new InetSocketAddress("127.0.0.1", port), Nqn.parse(NQN))
                .host(HostIdentity.of(Nqn.parse(HOST))).provider("softiwarp").ioQueues(1)
                .keepAliveTimeout(Duration.ofSeconds(5)).connectTimeout(Duration.ofSeconds(5))
                .ctrlLossTimeout(Duration.ofSeconds(1)).reconnectDelay(Duration.ofMillis(200))
                .commandTimeout(Duration.ofSeconds(5)).build());
    }

    private static NamespaceChange next(java.util.concurrent.BlockingQueue<NamespaceChange> heard) throws Exception {
        NamespaceChange c = heard.poll(10, TimeUnit.SECONDS);
        assertTrue(c != null, "no namespace change heard within 10 s");
        return c;
    }

    @Test
    void aNamespaceAddedResizedAndRemovedIsNamedInTheChangedNamespaceLogAndSeenByIdentify() throws Exception {
        int port = TestDaemons.freePort();
        Path img = dir.resolve("grow.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(1 << 20);
        }
        TargetDaemon d = daemon(port);
        try (NvmeController host = connect(port)) {
            java.util.concurrent.BlockingQueue<NamespaceChange> heard = new java.util.concurrent.LinkedBlockingQueue<>();
            host.onNamespaceChange(heard::add);
            assertEquals(List.of(1L), host.activeNamespaceIds());
            long nsid = d.live().addNamespace(NQN, 0, img.toString(), 0, 512, null);
            assertEquals(2, nsid);
            NamespaceChange added = next(heard);
            assertEquals(List.of(2L), added.reported(), "the Changed Namespace List names nsid 2");
            assertEquals(List.of(2L), added.added().stream().map(io.nvmf4j.initiator.Namespace::nsid).toList());
            assertEquals(List.of(1L, 2L), host.activeNamespaceIds());
            assertEquals(2048, host.namespace(2).orElseThrow().blockCount());

            d.live().resizeNamespace(NQN, 2, 4 << 20);
            NamespaceChange resized = next(heard);
            assertEquals(List.of(2L), resized.reported());
            assertEquals(8192, host.namespace(2).orElseThrow().blockCount(), "the host sees the new size");
            assertEquals(8192, host.identifyNamespace(2).nsze());

            d.live().removeNamespace(NQN, 2);
            NamespaceChange removed = next(heard);
            assertEquals(List.of(2L), removed.reported());
            assertEquals(List.of(1L), host.namespaces().stream().map(io.nvmf4j.initiator.Namespace::nsid).toList());
            assertEquals(List.of(1L), host.activeNamespaceIds());
        } finally {
            d.close();
        }
    }

    @Test
    void removingANamespaceUnderIoFailsOnlyItsCommandsWithAStatusAndTheOtherNamespaceGoesOn() throws Exception {
        int port = TestDaemons.freePort();
        // two namespaces from the start: this is about I/O on a namespace removed under it
        TargetDaemon d = TargetDaemon.start(QuickConfig.builder().nqn(NQN).ram("1M").ram("1M").allowHost(HOST)
                .listen("127.0.0.1:" + port).provider(Provider.SOFTIWARP).pollGroups(1).build(), false);
        try (NvmeController host = connect(port); var buffer = host.allocateBuffer(4096)) {
            var ns2 = host.namespace(2).orElseThrow();
            int ok = 0;
            int refused = 0;
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(600);
            boolean removed = false;
            while (System.nanoTime() < end) {
                if (!removed && System.nanoTime() > end - TimeUnit.MILLISECONDS.toNanos(400)) {
                    d.live().removeNamespace(NQN, 2);
                    removed = true;
                }
                try {
                    ns2.readAsync(0, 8, buffer, 0).get(5, TimeUnit.SECONDS);
                    ok++;
                } catch (java.util.concurrent.ExecutionException e) {
                    assertTrue(e.getCause() instanceof io.nvmf4j.initiator.NvmfStatusException, e.toString());
                    refused++;
                }
            }
            assertTrue(ok > 0 && refused > 0, ok + " reads before, " + refused + " refused after");
            host.firstNamespace().readAsync(0, 8, buffer, 0).get(5, TimeUnit.SECONDS);
            Thread.sleep(NamespaceBackends.RETIRE_DELAY_MILLIS + 500); // the removed backend is closed now
            host.firstNamespace().readAsync(0, 8, buffer, 0).get(5, TimeUnit.SECONDS);
        } finally {
            d.close();
        }
    }

    /** The target has released every controller of the subsystem: all their queues are gone. */
    private static void awaitNoControllers(TargetDaemon d) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!d.target().subsystem(io.nvmf4j.target.SubsystemNqn.of(NQN)).controllers().isEmpty()) {
            assertTrue(System.nanoTime() < end, "controllers still connected");
            Thread.sleep(20);
        }
    }

    @Test
    void removingAHostsAccessDisconnectsItsController() throws Exception {
        int port = TestDaemons.freePort();
        TargetDaemon d = daemon(port);
        try (NvmeController _ = connect(port)) {
            assertEquals(1, d.live().subsystem(NQN).controllers().size());
            d.live().removeHost(NQN, HOST);
            awaitNoControllers(d);
            assertThrows(NvmfException.class, () -> connect(port).close(), "and may not come back");
        } finally {
            d.close();
        }
    }

    @Test
    void removingAPortStopsNewConnectionsAndDisconnectsThoseThroughIt() throws Exception {
        int port = TestDaemons.freePort();
        TargetDaemon d = daemon(port);
        try (NvmeController _ = connect(port)) {
            d.live().removePort(d.target().ports().getFirst().portId());
            awaitNoControllers(d);
            assertThrows(NvmfException.class, () -> connect(port).close());
            assertTrue(d.live().config().ports().isEmpty());
        } finally {
            d.close();
        }
    }
}
