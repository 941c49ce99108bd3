package io.nvmf4j.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.IoRequest;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubsystemNamespace;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import io.nvmf4j.target.tcp.TcpTransport;
import io.nvmf4j.target.tcp.TcpTransportOptions;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * perf with fewer polling threads than I/O queues: one {@link QueuePollers} thread takes both queues of a controller
 * (over NVMe/TCP and over softiwarp RDMA, against the Java target on loopback), every completion of both queues runs
 * on it, and once it stops, the queues' own completion threads serve them again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueuePollersTest {

    static final Nqn NQN = Nqn.parse("nqn.2026-12.io.nvmf4j:perf-pollers");
    private NvmeTarget target;
    private AutoCloseable transport;

    private InetSocketAddress startTarget(String trtype) throws Exception {
        target = new NvmeTarget();
        Subsystem s = Subsystem.builder(NQN).serial("NVMF4JPOLL0001").allowAnyHost(true).build();
        s.addNamespace(SubsystemNamespace.of(1, RamBackend.allocate(4L << 20, 512)));
        target.addSubsystem(s);
        int port;
        if (trtype.equals("tcp")) {
            Port p = Port.tcp(1, "127.0.0.1", "0").build();
            target.addPort(p);
            p.addSubsystem(s);
            TcpTransport t = TcpTransport.open(target, TcpTransportOptions.builder().pollGroups(1)
                    .spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(8L << 20).build(), TransportObserver.NONE);
            transport = t;
            port = t.listen(p).getPort();
        } else {
            Port p = Port.rdma(1, "127.0.0.1", "0").build();
            target.addPort(p);
            p.addSubsystem(s);
            RdmaTransport t = RdmaTransport.open(target, RdmaTransportOptions.builder().provider("softiwarp")
                    .pollGroups(1).spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(8L << 20).build(),
                    TransportObserver.NONE);
            transport = t;
            port = t.listen(p).getPort();
        }
        return new InetSocketAddress("127.0.0.1", port);
    }

    @AfterEach
    void stopTarget() throws Exception {
        if (transport != null) {
            transport.close();
        }
        if (target != null) {
            target.close();
        }
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"tcp", "rdma"})
    void onePollerHandlesTheCompletionsOfBothQueuesAndGivesThemBack(String trtype) throws Exception {
        InetSocketAddress address = startTarget(trtype);
        ConnectOptions.Builder b = ConnectOptions.builder(address, NQN).host(HostIdentity.generate())
                .transport(trtype).ioQueues(2);
        if (trtype.equals("rdma")) {
            b.provider("softiwarp");
        }
        try (NvmeController c = NvmeController.connect(b.build()); IoBuffer buf = c.allocateBuffer(2 * 4096)) {
            assertEquals(2, c.ioQueueCount());
            Namespace ns = c.firstNamespace();
            List<Namespace> queues = List.of(ns.onQueue(0), ns.onQueue(1));
            try (QueuePollers pollers = QueuePollers.start(c, 2, 1)) {
                assertTrue(pollers.awaitHeld(20_000), "the poller holds both queues");
                for (String thread : writeOnEveryQueue(queues, buf, 20)) {
                    assertEquals("nvmf4j-perf-poller-0", thread);
                }
            }
            for (String thread : writeOnEveryQueue(queues, buf, 4)) {
                assertNotEquals("nvmf4j-perf-poller-0", thread, "released: the queues' own threads complete again");
            }
        }
    }

    /** {@code rounds} 4 KiB writes on each queue; the names of the threads their completions ran on. */
    private static List<String> writeOnEveryQueue(List<Namespace> queues, IoBuffer buf, int rounds)
            throws Exception {
        ConcurrentLinkedQueue<String> ranOn = new ConcurrentLinkedQueue<>();
        for (int round = 0; round < rounds; round++) {
            CountDownLatch done = new CountDownLatch(queues.size());
            for (int q = 0; q < queues.size(); q++) {
                IoRequest r = new IoRequest((req, error) -> {
                    ranOn.add(error == null ? Thread.currentThread().getName() : error.toString());
                    done.countDown();
                });
                queues.get(q).submit(r.write(8L * (round * queues.size() + q), 8, buf, 4096L * q));
            }
            assertTrue(done.await(20, TimeUnit.SECONDS), "completions polled in round " + round);
        }
        assertEquals(rounds * queues.size(), ranOn.size());
        return List.copyOf(ranOn);
    }

    @org.junit.jupiter.api.Test
    void theDefaultIsOneThreadPerCpuAndNeverMoreThanQueues() {
        int cpus = Runtime.getRuntime().availableProcessors();
        assertEquals(Math.min(2, cpus), QueuePollers.defaultThreads(2, 0));
        assertEquals(1, QueuePollers.defaultThreads(1, 0));
        assertEquals(1, QueuePollers.defaultThreads(4, 1));
        assertEquals(2, QueuePollers.defaultThreads(2, 8), "never more pollers than queues");
    }
}
