package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.log.AnaState;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import io.nvmf4j.testsupport.Await;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Multipath against the project's Java target over softiwarp on loopback: one subsystem behind two ports (two
 * listeners on 127.0.0.1), the host connected through both. I/O with verification keeps going without an error
 * while the ANA state of a path flips and while a port is removed and added again; optimized paths win over
 * non-optimized ones; with every path inaccessible an I/O fails after the no-path timeout.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MultipathAgainstJavaTargetTest {

    static final Nqn SUBNQN = Nqn.parse("nqn.2026-12.io.nvmf4j:multipath");
    static final long NS_BYTES = 4L << 20;
    static final int BLOCK = 512;

    private NvmeTarget target;
    private RdmaTransport transport;
    private Subsystem subsystem;
    private final Port[] ports = new Port[2];
    private final int[] tcpPorts = new int[2];
    private final HostIdentity host = HostIdentity.generate();

    @BeforeEach
    void startTarget() throws Exception {
        target = new NvmeTarget();
        subsystem = Subsystem.builder(SUBNQN).serial("NVMF4JMP0001").model("nvmf4j multipath")
                .allowAnyHost(true).build();
        subsystem.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(1, RamBackend.allocate(NS_BYTES, BLOCK)));
        target.addSubsystem(subsystem);
        transport = RdmaTransport.open(target, RdmaTransportOptions.builder().provider("softiwarp").pollGroups(1)
                .spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(8L << 20).completionQueueEntries(4096)
                .build(), TransportObserver.NONE);
        for (int i = 0; i < 2; i++) {
            addPort(i, "0");
        }
    }

    private void addPort(int i, String trsvcid) throws Exception {
        ports[i] = Port.rdma(i + 1, "127.0.0.1", trsvcid).build();
        target.addPort(ports[i]);
        ports[i].addSubsystem(subsystem);
        tcpPorts[i] = transport.listen(ports[i]).getPort();
    }

    /** Like nvmetcli removing a port: the listener stops and the controllers connected through it go. */
    private void removePort(int i) {
        transport.stopListening(ports[i]);
        target.removePort(ports[i]);
    }

    @AfterEach
    void stopTarget() {
        transport.close();
        target.close();
    }

    private ConnectOptions path(int i) {
        return ConnectOptions.builder(new InetSocketAddress("127.0.0.1", tcpPorts[i]), SUBNQN).host(host)
                .provider("softiwarp").ioQueues(2).queueSize(32).commandTimeout(Duration.ofSeconds(10))
                .reconnectDelay(Duration.ofMillis(200)).ctrlLossTimeout(Duration.ofSeconds(60))
                .bufferSize(16384).buffersPerQueue(16).build();
    }

    private MultipathController connect(MultipathPolicy policy, Duration noPathTimeout) throws NvmfException {
        return MultipathController.connect(List.of(path(0), path(1)), policy, noPathTimeout);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        Await.until(condition, Duration.ofSeconds(20), what);
    }

    /** Writers that write stamped blocks and read each back, each in its own LBA range, until stopped. */
    private static final class VerifiedIo implements AutoCloseable {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong verified = new AtomicLong();
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final List<Thread> threads = new ArrayList<>();

        VerifiedIo(MultipathNamespace ns, int workers) {
            long range = ns.blockCount() / workers;
            for (int w = 0; w < workers; w++) {
                long base = w * range;
                Random random = new Random(w);
                Thread t = new Thread(() -> {
                    byte[] out = new byte[8 * BLOCK];
                    byte[] in = new byte[out.length];
                    while (!stop.get()) {
                        random.nextBytes(out);
                        long slba = base + random.nextInt((int) range - 8);
                        try {
                            ns.write(slba, 8, MemorySegment.ofArray(out));
                            Arrays.fill(in, (byte) 0);
                            ns.read(slba, 8, MemorySegment.ofArray(in));
                            if (!Arrays.equals(out, in)) {
                                errors.add(new AssertionError("data mismatch at LBA " + slba));
                            }
                            verified.incrementAndGet();
                        } catch (Throwable e) {
                            errors.add(e);
                        }
                    }
                }, "verified-io-" + w);
                threads.add(t);
                t.start();
            }
        }

        void progress(long moreThan) throws InterruptedException {
            long start = verified.get();
            await(() -> verified.get() > start + moreThan || !errors.isEmpty(), moreThan + " more verified I/Os");
            assertTrue(errors.isEmpty(), () -> "errors: " + errors);
        }

        /** Stops the workers and waits for them (up to 30 s each). */
        void stop() throws InterruptedException {
            stop.set(true);
            for (Thread t : threads) {
                t.join(30_000);
            }
        }

        @Override
        public void close() {
            try {
                stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void bothPathsLeadToTheSameSubsystemAndNamespace() throws Exception {
        try (MultipathController mp = connect(MultipathPolicy.ROUND_ROBIN, Duration.ofSeconds(5))) {
            assertEquals(SUBNQN, mp.subsystemNqn());
            assertEquals(2, mp.paths().size());
            MultipathNamespace ns = mp.firstNamespace();
            assertEquals(NS_BYTES / BLOCK, ns.blockCount());
            assertEquals(List.of(AnaState.OPTIMIZED, AnaState.OPTIMIZED), mp.anaStates(1));
            var ids0 = mp.paths().get(0).namespaceDescriptors(1);
            var ids1 = mp.paths().get(1).namespaceDescriptors(1);
            assertTrue(!ids0.isEmpty() && ids0.size() == ids1.size(), ids0 + " / " + ids1);
            for (int i = 0; i < ids0.size(); i++) {
                assertEquals(ids0.get(i).type(), ids1.get(i).type());
                assertTrue(Arrays.equals(ids0.get(i).id(), ids1.get(i).id()), "same namespace ID on both paths");
            }
            byte[] data = new byte[4 * BLOCK];
            new Random(1).nextBytes(data);
            for (int i = 0; i < 10; i++) {
                ns.write(i * 4L, 4, MemorySegment.ofArray(data));
            }
            assertTrue(mp.submittedPerPath().stream().allMatch(n -> n == 5), "round-robin: "
                    + mp.submittedPerPath());
            byte[] back = new byte[data.length];
            ns.read(36, 4, MemorySegment.ofArray(back));
            assertTrue(Arrays.equals(data, back));
        }
    }

    @Test
    void pathsFoundByDiscoveryWriteZeroesDeallocateAndFlush() throws Exception {
        DiscoveryLog[] logs = new DiscoveryLog[2];
        for (int i = 0; i < 2; i++) {
            removePort(i); // again with its bound port number, which the discovery log then shows
            addPort(i, String.valueOf(tcpPorts[i]));
            logs[i] = Discovery.discover(ConnectOptions.discovery(new InetSocketAddress("127.0.0.1", tcpPorts[i]))
                    .host(host).provider("softiwarp").build());
        }
        List<ConnectOptions> found = MultipathController.pathsFromDiscovery(SUBNQN, path(0), logs[0], logs[1],
                logs[0]);
        assertEquals(2, found.size(), "one path per port, each once: " + Arrays.toString(logs));
        assertEquals(tcpPorts[1], found.get(1).address().getPort());
        try (MultipathController mp = MultipathController.connect(found)) {
            MultipathNamespace ns = mp.firstNamespace();
            byte[] ones = new byte[8 * BLOCK];
            Arrays.fill(ones, (byte) 0x5A);
            ns.write(100, 8, MemorySegment.ofArray(ones));
            ns.writeZeroesAsync(100, 4, false).get(10, TimeUnit.SECONDS);
            ns.deallocateAsync(104, 4).get(10, TimeUnit.SECONDS);
            ns.flush();
            byte[] back = new byte[8 * BLOCK];
            ns.read(100, 8, MemorySegment.ofArray(back));
            assertTrue(Arrays.equals(new byte[4 * BLOCK], Arrays.copyOf(back, 4 * BLOCK)), "write zeroes");
        }
    }

    @Test
    void refusesAPathToAnotherSubsystem() throws Exception {
        Nqn other = Nqn.parse("nqn.2026-12.io.nvmf4j:multipath-other");
        Subsystem s = Subsystem.builder(other).serial("NVMF4JMP0002").allowAnyHost(true).build();
        s.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(1, RamBackend.allocate(NS_BYTES, BLOCK)));
        target.addSubsystem(s);
        ports[1].addSubsystem(s);
        ConnectOptions wrong = path(1).toBuilder().subsystemNqn(other).build();
        NvmfException e = assertThrows(NvmfException.class,
                () -> MultipathController.connect(List.of(path(0), wrong), MultipathPolicy.ROUND_ROBIN,
                        Duration.ofSeconds(1)));
        assertTrue(e.getMessage().contains("not a path of the same subsystem"), e.getMessage());
    }

    @Test
    void prefersOptimizedOverNonOptimized() throws Exception {
        ports[0].anaState(Port.DEFAULT_ANA_GROUP, AnaState.NON_OPTIMIZED);
        try (MultipathController mp = connect(MultipathPolicy.QUEUE_DEPTH, Duration.ofSeconds(5))) {
            assertEquals(List.of(AnaState.NON_OPTIMIZED, AnaState.OPTIMIZED), mp.anaStates(1));
            MultipathNamespace ns = mp.firstNamespace();
            byte[] data = new byte[BLOCK];
            for (int i = 0; i < 20; i++) {
                ns.write(i, 1, MemorySegment.ofArray(data));
            }
            assertEquals(List.of(0L, 20L), mp.submittedPerPath(), "all on the optimized path");
            // the ANA change notice moves the load: port 2 becomes non-optimized, port 1 optimized
            ports[1].anaState(Port.DEFAULT_ANA_GROUP, AnaState.NON_OPTIMIZED);
            ports[0].anaState(Port.DEFAULT_ANA_GROUP, AnaState.OPTIMIZED);
            await(() -> mp.anaStates(1).equals(List.of(AnaState.OPTIMIZED, AnaState.NON_OPTIMIZED)),
                    "the ANA change notices");
            for (int i = 0; i < 20; i++) {
                ns.write(i, 1, MemorySegment.ofArray(data));
            }
            assertEquals(List.of(20L, 20L), mp.submittedPerPath());
        }
    }

    @Test
    void verifiedIoGoesOnWhileTheUsedPathTurnsInaccessibleAndBack() throws Exception {
        ports[1].anaState(Port.DEFAULT_ANA_GROUP, AnaState.NON_OPTIMIZED);
        try (MultipathController mp = connect(MultipathPolicy.ROUND_ROBIN, Duration.ofSeconds(30));
             VerifiedIo io = new VerifiedIo(mp.firstNamespace(), 4)) {
            io.progress(200);
            for (int round = 0; round < 3; round++) {
                ports[0].anaState(Port.DEFAULT_ANA_GROUP, AnaState.INACCESSIBLE);
                io.progress(200);
                long before = mp.submittedPerPath().get(1);
                io.progress(100);
                assertTrue(mp.submittedPerPath().get(1) > before, "the non-optimized path carries the I/O");
                ports[0].anaState(Port.DEFAULT_ANA_GROUP, AnaState.OPTIMIZED);
                await(() -> mp.anaStates(1).get(0) == AnaState.OPTIMIZED, "path 1 optimized again");
                io.progress(200);
            }
            long before = mp.submittedPerPath().get(0);
            io.progress(100);
            assertTrue(mp.submittedPerPath().get(0) > before, "the recovered optimized path is used again");
            io.stop();
            assertTrue(io.errors.isEmpty(), () -> "errors: " + io.errors);
        }
    }

    @Test
    void verifiedIoGoesOnWhileAPortIsRemovedAndAddedAgain() throws Exception {
        try (MultipathController mp = connect(MultipathPolicy.ROUND_ROBIN, Duration.ofSeconds(30));
             VerifiedIo io = new VerifiedIo(mp.firstNamespace(), 4)) {
            io.progress(200);
            for (int round = 0; round < 2; round++) {
                removePort(0);
                await(() -> mp.paths().get(0).state() == ControllerState.RECONNECTING, "path 1 reconnecting");
                io.progress(300);
                addPort(0, String.valueOf(tcpPorts[0]));
                await(() -> mp.paths().get(0).state() == ControllerState.LIVE, "path 1 live again");
                long before = mp.submittedPerPath().get(0);
                io.progress(200);
                assertTrue(mp.submittedPerPath().get(0) > before, "the path that came back is used again");
            }
            io.stop();
            assertTrue(io.errors.isEmpty(), () -> "errors: " + io.errors);
        }
    }

    @Test
    void everyPathInaccessibleFailsTheIoAfterTheNoPathTimeout() throws Exception {
        try (MultipathController mp = connect(MultipathPolicy.ROUND_ROBIN, Duration.ofSeconds(1))) {
            MultipathNamespace ns = mp.firstNamespace();
            ports[0].anaState(Port.DEFAULT_ANA_GROUP, AnaState.INACCESSIBLE);
            ports[1].anaState(Port.DEFAULT_ANA_GROUP, AnaState.INACCESSIBLE);
            await(() -> mp.anaStates(1).equals(List.of(AnaState.INACCESSIBLE, AnaState.INACCESSIBLE)),
                    "both paths inaccessible");
            long start = System.nanoTime();
            NvmfException e = assertThrows(NvmfException.class,
                    () -> ns.write(0, 1, MemorySegment.ofArray(new byte[BLOCK])));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(e.getMessage().contains("no usable path within 1000 ms"), e.getMessage());
            assertTrue(ms >= 900 && ms < 5000, "failed after " + ms + " ms");
            // a path that turns accessible again takes I/O at once
            ports[1].anaState(Port.DEFAULT_ANA_GROUP, AnaState.OPTIMIZED);
            await(() -> mp.anaStates(1).get(1) == AnaState.OPTIMIZED, "path 2 optimized");
            ns.write(0, 1, MemorySegment.ofArray(new byte[BLOCK]));
        }
    }
}
