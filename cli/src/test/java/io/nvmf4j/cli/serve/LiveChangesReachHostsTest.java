package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.Provider;
import io.nvmf4j.config.QuickConfig;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.protocol.Nqn;
import java.io.RandomAccessFile;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
 * <p>The nvmf4j initiator has no Asynchronous Event Request handling yet, so the host here reads the log and
 * re-identifies itself (what Linux nvme_aen_work() → nvme_scan_work() does on the event).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LiveChangesReachHostsTest {

    static final String NQN = "nqn.2026-12.io.nvmf4j:live";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555";
    static final int LID_CHANGED_NS = 0x04;

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

    private static long firstChanged(NvmeController c) throws NvmfException {
        MemorySegment log = c.getLogPage(LID_CHANGED_NS, 0xFFFF_FFFFL, 0, 4096, false);
        return Integer.toUnsignedLong(log.get(ValueLayout.JAVA_INT_UNALIGNED, 0));
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
            assertEquals(List.of(1L), host.activeNamespaceIds());
            long nsid = d.live().addNamespace(NQN, 0, img.toString(), 0, 512, null);
            assertEquals(2, nsid);
            assertEquals(2, firstChanged(host));
            assertEquals(List.of(1L, 2L), host.activeNamespaceIds());
            assertEquals(2048, host.identifyNamespace(2).nsze());

            d.live().resizeNamespace(NQN, 2, 4 << 20);
            assertEquals(2, firstChanged(host));
            assertEquals(8192, host.identifyNamespace(2).nsze(), "the host sees the new size");

            d.live().removeNamespace(NQN, 2);
            assertEquals(2, firstChanged(host));
            assertEquals(List.of(1L), host.activeNamespaceIds());
        } finally {
            d.close();
        }
    }

    @Test
    void removingANamespaceUnderIoFailsOnlyItsCommandsWithAStatusAndTheOtherNamespaceGoesOn() throws Exception {
        int port = TestDaemons.freePort();
        // two namespaces from the start: the initiator learns its namespaces at connect (no AER handling yet)
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
                    assertTrue(e.getCause() instanceof io.nvmf4j.initiator.NvmeStatusException, e.toString());
                    refused++;
                }
            }
            assertTrue(ok > 0 && refused > 0, ok + " reads before, " + refused + " refused after");
            host.firstNamespace().readAsync(0, 8, buffer, 0).get(5, TimeUnit.SECONDS);
            Thread.sleep(LiveTarget.RETIRE_DELAY_MILLIS + 500); // the removed backend is closed now
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
        try (NvmeController host = connect(port)) {
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
        try (NvmeController host = connect(port)) {
            d.live().removePort(d.target().ports().getFirst().portId());
            awaitNoControllers(d);
            assertThrows(NvmfException.class, () -> connect(port).close());
            assertTrue(d.live().config().ports().isEmpty());
        } finally {
            d.close();
        }
    }
}
