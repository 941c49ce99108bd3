package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.backend.FileBackend;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host library against the project's Java target (module {@code target}) over softiwarp on loopback: a RAM
 * namespace (512-byte blocks) and a file namespace (4 KiB blocks), MDTS 32 KiB, several I/O queues, full queue
 * depth, transfers above MDTS, in-capsule writes, every I/O command, discovery; data verified.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InitiatorAgainstJavaTargetTest {

    static final Nqn SUBNQN = Nqn.parse("nqn.2026-12.io.nvmf4j:initiator-e2e");
    static final long NS_BYTES = 4L << 20;

    @TempDir
    Path dir;
    private NvmeTarget target;
    private RdmaTransport transport;
    private InetSocketAddress address;
    private Path image;
    private Port port;
    private Subsystem subsystem;
    private final HostIdentity host = HostIdentity.generate();

    @BeforeEach
    void startTarget() throws Exception {
        target = new NvmeTarget();
        port = Port.rdma(1, "127.0.0.1", "0").mdts(3).build();
        subsystem = Subsystem.builder(SUBNQN).serial("NVMF4JE2E0001").model("nvmf4j e2e")
                .allowAnyHost(true).build();
        subsystem.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(1, RamBackend.allocate(NS_BYTES, 512)));
        image = dir.resolve("ns2.img");
        Files.write(image, new byte[(int) NS_BYTES]);
        subsystem.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(2, FileBackend.open(image, 4096)));
        target.addSubsystem(subsystem);
        target.addPort(port);
        port.addSubsystem(subsystem);
        transport = RdmaTransport.open(target, RdmaTransportOptions.builder().provider("softiwarp").pollGroups(1)
                .spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(8L << 20).completionQueueEntries(4096)
                .build(), TransportObserver.NONE);
        address = new InetSocketAddress("127.0.0.1", transport.listen(port).getPort());
    }

    @AfterEach
    void stopTarget() {
        transport.close();
        target.close();
    }

    private NvmeController connect(int queues, int queueSize) throws NvmfException {
        return NvmeController.connect(ConnectOptions.builder(address, SUBNQN).host(host).provider("softiwarp")
                .ioQueues(queues).queueSize(queueSize).commandTimeout(Duration.ofSeconds(15))
                .bufferSize(16384).buffersPerQueue(16).build());
    }

    /** Get Features: the value in DW0, the Host Identifier's 16 bytes, Invalid Field returned (not thrown). */
    @Test
    void getFeaturesReturnsValuesDataAndStatus() throws Exception {
        try (NvmeController c = connect(2, 32)) {
            FeatureResult queues = c.getFeatures(0x07, 0, 0, 0, null);
            assertTrue(queues.isSuccess(), queues.toString());
            int granted = Math.min((queues.dw0() & 0xFFFF) + 1, (queues.dw0() >>> 16) + 1);
            assertTrue(granted >= c.ioQueueCount(), "NSQA/NCQA " + Integer.toHexString(queues.dw0()));
            assertEquals(5000, c.getFeatures(0x0f, 0xFFFF_FFFFL, 0, 0, null).dw0(), "KATO in ms");
            MemorySegment hostId = MemorySegment.ofArray(new byte[16]);
            assertTrue(c.getFeatures(0x81, 0, 0, 1, hostId).isSuccess());
            java.nio.ByteBuffer uuid = java.nio.ByteBuffer.wrap(hostId.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(host.hostId(), new java.util.UUID(uuid.getLong(), uuid.getLong()));
            // Timestamp is not implemented: Invalid Field; with a data buffer the length is refused first, as
            // nvmet_execute_get_features() checks nvmet_feat_data_len() before the FID
            FeatureResult timestamp = c.getFeatures(0x0e, 0, 0, 0, null);
            assertTrue(timestamp.isUnsupported(), timestamp.toString());
            FeatureResult withData = c.getFeatures(0x0e, 0, 0, 0, MemorySegment.ofArray(new byte[8]));
            assertEquals(0x00F, withData.status().code() & 0x7FF, withData.toString()); // sct 0h sc 0Fh
            assertEquals(ControllerState.LIVE, c.state(), "a refused feature is only a status");
        }
    }

    /**
     * With a long spin budget (perf --spin-us 1000000) only the I/O queues' completion threads spin: the admin
     * queue's blocks once its command is answered, so that a host pinned to one core has one busy thread, not two.
     */
    @Test
    void onlyTheIoQueuesSpinTheAdminQueueBlocksBetweenItsCommands() throws Exception {
        java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
        try (NvmeController c = NvmeController.connect(ConnectOptions.builder(address, SUBNQN).host(host)
                .provider("softiwarp").ioQueues(1).queueSize(32).commandTimeout(Duration.ofSeconds(15))
                .spinBudget(Duration.ofSeconds(60)).build())) {
            Namespace ram = c.namespace(1).orElseThrow();
            MemorySegment block = MemorySegment.ofArray(new byte[512]);
            ram.read(0, 1, block);
            assertEquals("NVMF4JE2E0001", c.identify().serialNumber().strip());
            Thread admin = pollerEndingWith("-admin", before);
            Thread io = pollerEndingWith("-io1", before);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (admin.getState() == Thread.State.RUNNABLE && System.nanoTime() - deadline < 0) {
                Thread.sleep(5);
            }
            assertTrue(admin.getState() == Thread.State.TIMED_WAITING || admin.getState() == Thread.State.WAITING,
                    "the admin queue's completion thread still spins 10 s after its last command: "
                            + admin.getState());
            assertEquals(Thread.State.RUNNABLE, io.getState(), "an I/O queue spins for its whole budget");
        }
    }

    /** The completion thread named {@code nvmf4j-*suffix} that this test's controller started. */
    private static Thread pollerEndingWith(String suffix, java.util.Set<Thread> before) {
        List<Thread> found = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t) && t.getName().startsWith("nvmf4j-") && t.getName().endsWith(suffix))
                .toList();
        assertEquals(1, found.size(), "completion threads named *" + suffix + ": " + found);
        return found.get(0);
    }

    @Test
    void connectsIdentifiesAndListsBothNamespaces() throws Exception {
        try (NvmeController c = connect(3, 32)) {
            assertEquals(ControllerState.LIVE, c.state());
            assertEquals(3, c.ioQueueCount());
            assertEquals(32 * 1024, c.maxTransferBytes(), "MDTS 3 with 4 KiB pages");
            assertTrue(c.inCapsuleDataBytes() > 0, "the target offers in-capsule data");
            assertEquals("NVMF4JE2E0001", c.identify().serialNumber().strip());
            assertEquals(SUBNQN, c.identify().subsystemNqn());
            assertEquals(List.of(1L, 2L), c.activeNamespaceIds());
            Namespace ram = c.namespace(1).orElseThrow();
            Namespace file = c.namespace(2).orElseThrow();
            assertEquals(512, ram.blockSize());
            assertEquals(NS_BYTES / 512, ram.blockCount());
            assertEquals(4096, file.blockSize());
            assertEquals(NS_BYTES / 4096, file.blockCount());
        }
    }

    @Test
    void readsTheAnaLogPageOfItsPathInPieces() throws Exception {
        port.anaState(1, io.nvmf4j.protocol.log.AnaState.NON_OPTIMIZED);
        try (NvmeController c = connect(1, 32)) {
            io.nvmf4j.protocol.log.AnaLogPage log = c.anaLog();
            assertEquals(1, log.changeCount());
            assertEquals(List.of(new io.nvmf4j.protocol.log.AnaLogPage.Group(1, 1,
                    io.nvmf4j.protocol.log.AnaState.NON_OPTIMIZED, List.of(1L, 2L))), log.groups(),
                    "8208 bytes read as 4096 + 4096 + 16: the offsets are honoured");
        }
    }

    @Test
    void everyPathMovesTheRightBytesOnRamAndFileNamespaces() throws Exception {
        Random random = new Random(42);
        try (NvmeController c = connect(2, 32)) {
            for (Namespace ns : c.namespaces()) {
                int bs = (int) ns.blockSize();
                // in-capsule (one block), keyed via bounce buffers, above MDTS (split), zero copy above MDTS
                for (int bytes : new int[] {bs, 12 * 1024, 200 * 1024}) {
                    byte[] data = new byte[bytes];
                    random.nextBytes(data);
                    long slba = random.nextInt((int) (ns.blockCount() - bytes / bs));
                    ns.write(slba, bytes / bs, MemorySegment.ofArray(data));
                    byte[] back = new byte[bytes];
                    ns.read(slba, bytes / bs, MemorySegment.ofArray(back));
                    assertArrayEquals(data, back, "nsid " + ns.nsid() + ", " + bytes + " bytes at " + slba);
                }
                try (IoBuffer buffer = c.allocateBuffer(256 * 1024)) {
                    byte[] data = new byte[256 * 1024];
                    random.nextBytes(data);
                    MemorySegment.copy(MemorySegment.ofArray(data), 0, buffer.segment(), 0, data.length);
                    ns.write(0, data.length / bs, buffer, 0);
                    buffer.segment().fill((byte) 0);
                    ns.read(0, data.length / bs, buffer, 0);
                    assertArrayEquals(data, buffer.segment().toArray(ValueLayout.JAVA_BYTE), "zero copy nsid " + ns.nsid());
                }
            }
            // the file namespace really is the file
            Namespace file = c.namespace(2).orElseThrow();
            byte[] marker = new byte[4096];
            java.util.Arrays.fill(marker, (byte) 0xC3);
            file.write(100, 1, MemorySegment.ofArray(marker));
            file.flush();
            byte[] onDisk = Files.readAllBytes(image);
            assertArrayEquals(marker, java.util.Arrays.copyOfRange(onDisk, 100 * 4096, 101 * 4096));
        }
    }

    @Test
    void fullQueueDepthOnSeveralQueuesWithDataVerified() throws Exception {
        try (NvmeController c = connect(3, 32)) {
            Namespace ns = c.namespace(1).orElseThrow();
            int ios = 600;
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            for (int i = 0; i < ios; i++) {
                byte[] block = new byte[512];
                java.util.Arrays.fill(block, (byte) (i * 7));
                futures.add(ns.writeAsync(i, 1, MemorySegment.ofArray(block)));
            }
            CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
            List<byte[]> reads = new ArrayList<>();
            futures.clear();
            for (int i = 0; i < ios; i++) {
                byte[] back = new byte[512];
                reads.add(back);
                futures.add(ns.readAsync(i, 1, MemorySegment.ofArray(back)));
            }
            CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
            for (int i = 0; i < ios; i++) {
                byte[] expected = new byte[512];
                java.util.Arrays.fill(expected, (byte) (i * 7));
                assertArrayEquals(expected, reads.get(i), "block " + i);
            }
        }
    }

    @Test
    void writeZeroesDeallocateFlushAndStatuses() throws Exception {
        try (NvmeController c = connect(1, 32)) {
            Namespace ns = c.namespace(1).orElseThrow();
            byte[] ones = new byte[16 * 512];
            java.util.Arrays.fill(ones, (byte) 1);
            ns.write(1000, 16, MemorySegment.ofArray(ones));
            ns.writeZeroes(1000, 4, false);
            ns.deallocate(1012, 4);
            ns.flush();
            byte[] back = new byte[16 * 512];
            ns.read(1000, 16, MemorySegment.ofArray(back));
            for (int b = 0; b < 16; b++) {
                byte expected = (b < 4 || b >= 12) ? 0 : (byte) 1;
                assertEquals(expected, back[b * 512], "block " + (1000 + b));
            }
            NvmfStatusException e = assertThrows(NvmfStatusException.class,
                    () -> ns.read(ns.blockCount() - 2, 4, MemorySegment.ofArray(new byte[2048])));
            assertEquals(StatusCode.LBA_RANGE, e.statusCode().orElseThrow());
        }
    }

    @Test
    void transportKilledAndRestartedMidRunEveryIoCompletesOrFailsCleanly() throws Exception {
        try (NvmeController c = NvmeController.connect(ConnectOptions.builder(address, SUBNQN).host(host)
                .provider("softiwarp").ioQueues(2).queueSize(32).commandTimeout(Duration.ofSeconds(10))
                .reconnectDelay(Duration.ofMillis(300)).ctrlLossTimeout(Duration.ofSeconds(30)).build())) {
            Namespace ns = c.namespace(2).orElseThrow(); // the file namespace survives the transport restart
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            List<byte[]> payloads = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                byte[] block = new byte[4096];
                java.util.Arrays.fill(block, (byte) (i + 1));
                payloads.add(block);
                writes.add(ns.writeAsync(i, 1, MemorySegment.ofArray(block)));
                if (i == 20) {
                    transport.close(); // the target's transport dies with I/O in flight
                }
            }
            Thread.sleep(500);
            transport = RdmaTransport.open(target, RdmaTransportOptions.builder().provider("softiwarp").pollGroups(1)
                    .spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(8L << 20).completionQueueEntries(4096)
                    .build(), TransportObserver.NONE);
            Port same = Port.rdma(2, "127.0.0.1", String.valueOf(address.getPort())).mdts(3).build();
            target.addPort(same);
            same.addSubsystem(subsystem);
            transport.listen(same);
            int completed = 0;
            for (CompletableFuture<Void> w : writes) {
                try {
                    w.get(40, TimeUnit.SECONDS);
                    completed++;
                } catch (java.util.concurrent.ExecutionException e) {
                    assertTrue(e.getCause() instanceof NvmfException, "clean failure: " + e.getCause());
                }
            }
            assertEquals(ControllerState.LIVE, c.state());
            assertTrue(completed >= 43, "writes issued after the restart began complete: " + completed);
            for (int i = 0; i < 64; i++) {
                if (writes.get(i).isCompletedExceptionally()) {
                    continue;
                }
                byte[] back = new byte[4096];
                ns.read(i, 1, MemorySegment.ofArray(back));
                assertArrayEquals(payloads.get(i), back, "block " + i);
            }
        }
    }

    /**
     * A read into memory the completion thread may not touch (a confined arena of the caller's thread): copying the
     * bounce buffer out throws on the completion thread. That read must fail, at once, and the queue must go on;
     * before, the exception ended the completion thread and the caller waited forever.
     */
    @Test
    void aReadIntoMemoryTheCompletionThreadCannotTouchFailsThatReadOnly() throws Exception {
        try (NvmeController c = connect(1, 32); java.lang.foreign.Arena confined = java.lang.foreign.Arena.ofConfined()) {
            Namespace ns = c.namespace(1).orElseThrow();
            MemorySegment mine = confined.allocate(8192);
            long start = System.nanoTime();
            NvmfException e = org.junit.jupiter.api.Assertions.assertThrows(NvmfException.class,
                    () -> ns.read(0, 16, mine));
            assertTrue(System.nanoTime() - start < 10_000_000_000L, "failed within the command timeout");
            assertTrue(e.getMessage().contains("read"), e.getMessage());
            byte[] data = new byte[8192];
            new Random(7).nextBytes(data);
            ns.write(0, 16, MemorySegment.ofArray(data));
            byte[] back = new byte[8192];
            ns.read(0, 16, MemorySegment.ofArray(back));
            assertArrayEquals(data, back, "the queue still serves reads and writes");
        }
    }

    @Test
    void discoveryListsTheSubsystem() throws Exception {
        DiscoveryLog log = Discovery.discover(ConnectOptions.discovery(address).host(host).provider("softiwarp")
                .build());
        assertTrue(log.records().stream().anyMatch(r -> r.subnqn().equals(SUBNQN.value())
                && r.trtypeName().equals("rdma")), String.valueOf(log.records()));
    }
}
