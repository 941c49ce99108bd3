package io.nvmf4j.initiator.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.initiator.ClaimingThread;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.ControllerState;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.IoRequest;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.initiator.NvmfTimeoutException;
import io.nvmf4j.initiator.QueuePolling;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubsystemNamespace;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.TransportObserver;
import io.nvmf4j.target.tcp.TcpTransport;
import io.nvmf4j.target.tcp.TcpTransportOptions;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The host library over NVMe/TCP against the project's Java target on loopback: connect and identify, writes in
 * the capsule (4 KiB) and by R2T/H2CData (128 KiB, above IOCCSZ), reads by C2HData, data compared; the same with
 * header and data digests; a caller's buffer (zero copy) and the copy path; a thread polling the queue itself, and
 * one that gives its claim back before the grant; a C2HData out of place.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostOverTcpAgainstJavaTargetTest {

    static final Nqn SUBNQN = Nqn.parse("nqn.2026-12.io.nvmf4j:initiator-tcp");
    static final long NS_BYTES = 4L << 20;

    private NvmeTarget target;
    private TcpTransport transport;
    private InetSocketAddress address;
    private final HostIdentity host = HostIdentity.generate();

    @BeforeEach
    void startTarget() throws Exception {
        target = new NvmeTarget();
        Port port = Port.tcp(1, "127.0.0.1", "0").build();
        Subsystem subsystem = Subsystem.builder(SUBNQN).serial("NVMF4JTCPH001").model("nvmf4j tcp host")
                .allowAnyHost(true).build();
        subsystem.addNamespace(SubsystemNamespace.of(1, RamBackend.allocate(NS_BYTES, 512)));
        target.addSubsystem(subsystem);
        target.addPort(port);
        port.addSubsystem(subsystem);
        transport = TcpTransport.open(target, TcpTransportOptions.builder().pollGroups(1)
                .spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(8L << 20).build(), TransportObserver.NONE);
        address = new InetSocketAddress("127.0.0.1", transport.listen(port).getPort());
    }

    @AfterEach
    void stopTarget() {
        transport.close();
        target.close();
    }

    private NvmeController connect(boolean digests) throws Exception {
        return NvmeController.connect(ConnectOptions.builder(address, SUBNQN).host(host).transport("tcp")
                .headerDigest(digests).dataDigest(digests).ioQueues(2).queueSize(32)
                .commandTimeout(Duration.ofSeconds(15)).build());
    }

    @Test
    void connectsIdentifiesAndMovesDataInTheCapsuleAndByR2t() throws Exception {
        try (NvmeController c = connect(false)) {
            assertEquals(ControllerState.LIVE, c.state());
            assertEquals("NVMF4JTCPH001", c.identify().serialNumber().trim());
            assertTrue(c.inCapsuleDataBytes() >= 4096, "IOCCSZ offers 4 KiB in the capsule: "
                    + c.inCapsuleDataBytes());
            Namespace ns = c.namespace(1).orElseThrow();
            assertEquals(NS_BYTES / 512, ns.blockCount());
            writeAndReadBack(ns, 0, 4096, 1);                 // in the capsule
            writeAndReadBack(ns, 64, 128 * 1024, 2);          // R2T, H2CData; C2HData back
            writeAndReadBack(ns.onQueue(1), 1024, 128 * 1024, 3);
        }
    }

    @Test
    void digestsOnBothWays() throws Exception {
        try (NvmeController c = connect(true)) {
            Namespace ns = c.namespace(1).orElseThrow();
            writeAndReadBack(ns, 8, 4096, 4);
            writeAndReadBack(ns, 512, 128 * 1024, 5);
        }
    }

    @Test
    void callerBuffersAreReadAndWrittenInPlace() throws Exception {
        try (NvmeController c = connect(false)) {
            Namespace ns = c.namespace(1).orElseThrow();
            IoBuffer buf = c.allocateBuffer(256 * 1024);
            byte[] data = random(128 * 1024, 6);
            MemorySegment.copy(MemorySegment.ofArray(data), 0, buf.segment(), 0, data.length);
            ns.writeAsync(2048, data.length / 512, buf, 0).get(10, TimeUnit.SECONDS);
            ns.readAsync(2048, data.length / 512, buf, 128 * 1024).get(10, TimeUnit.SECONDS);
            assertArrayEquals(data, buf.segment().asSlice(128 * 1024, data.length).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    /**
     * A C2HData whose DATAO is not where the read stands: the host ends the connection with an H2CTermReq (FES
     * 04h, Data Transfer Out of Range), reconnects, and the read, sent again, completes with the right data.
     */
    @Test
    void aC2hDataOutOfPlaceEndsTheConnectionWithATermReqAndTheReadIsRetried() throws Exception {
        try (CorruptingTcpProxy proxy = new CorruptingTcpProxy(address);
             NvmeController c = NvmeController.connect(ConnectOptions.builder(proxy.address(), SUBNQN).host(host)
                     .transport("tcp").ioQueues(1).queueSize(16).keepAliveTimeout(Duration.ZERO)
                     .reconnectDelay(Duration.ofMillis(100)).commandTimeout(Duration.ofSeconds(15)).build())) {
            Namespace ns = c.namespace(1).orElseThrow();
            byte[] data = random(8192, 7);
            ns.write(100, 16, MemorySegment.ofArray(data));
            proxy.corruptNextC2hData();
            byte[] back = new byte[data.length];
            ns.read(100, 16, MemorySegment.ofArray(back));
            assertArrayEquals(data, back);
            assertEquals(java.util.List.of(0x04), proxy.hostTermReqs);
            // the read completes once its queue is back; the controller turns LIVE when all of them are
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (c.state() != ControllerState.LIVE && System.nanoTime() - until < 0) {
                Thread.sleep(5);
            }
            assertEquals(ControllerState.LIVE, c.state());
        }
    }

    /**
     * A command whose CapsuleResp never arrives fails after the command timeout with NvmfTimeoutException, as over
     * RDMA; the queue reconnects and the next I/O goes through.
     */
    @Test
    void aCommandWithoutResponseTimesOutAndTheQueueReconnects() throws Exception {
        try (CorruptingTcpProxy proxy = new CorruptingTcpProxy(address);
             NvmeController c = NvmeController.connect(ConnectOptions.builder(proxy.address(), SUBNQN).host(host)
                     .transport("tcp").ioQueues(1).queueSize(16).keepAliveTimeout(Duration.ZERO)
                     .reconnectDelay(Duration.ofMillis(100)).commandTimeout(Duration.ofSeconds(1)).build())) {
            Namespace ns = c.namespace(1).orElseThrow();
            proxy.dropNextResponse();
            long start = System.nanoTime();
            NvmfException e = assertThrows(NvmfException.class,
                    () -> ns.write(0, 8, MemorySegment.ofArray(new byte[4096])));
            assertInstanceOf(NvmfTimeoutException.class, e, e.toString());
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(900), "failed before the timeout");
            writeAndReadBack(ns, 16, 8192, 10);
        }
    }

    /**
     * allocateBuffer over TCP for sizes that are not whole pages (one block, an odd size, three pages and a block):
     * a buffer of exactly that size on a page boundary, through which a write and a read of its blocks go whole.
     */
    @Test
    void buffersOfAnySizeAreWholeAndPageAligned() throws Exception {
        try (NvmeController c = connect(false)) {
            Namespace ns = c.namespace(1).orElseThrow();
            for (int size : new int[] {512, 1000, 3 * 4096 + 512}) {
                try (IoBuffer buf = c.allocateBuffer(2L * size)) {
                    assertEquals(2L * size, buf.size());
                    assertEquals(0, buf.segment().address() % 4096, "page-aligned for " + size + " bytes");
                    int blocks = size / 512;
                    byte[] data = random(blocks * 512, size);
                    MemorySegment.copy(MemorySegment.ofArray(data), 0, buf.segment(), 0, data.length);
                    ns.writeAsync(0, blocks, buf, 0).get(20, TimeUnit.SECONDS);
                    ns.readAsync(0, blocks, buf, size).get(20, TimeUnit.SECONDS);
                    assertEquals(-1, buf.segment().asSlice(0, data.length)
                            .mismatch(buf.segment().asSlice(size, data.length)), size + " bytes");
                }
            }
        }
    }

    /**
     * A thread that polls the queue itself (QueuePolling) over TCP: its submissions' handlers run on it, and once it
     * gives the queue back the completion thread serves it again.
     */
    @Test
    void aClaimingThreadPollsTheSocketAndGivesTheQueueBack() throws Exception {
        try (NvmeController c = connect(false)) {
            Namespace ns = c.namespace(1).orElseThrow().onQueue(0);
            IoBuffer buf = c.allocateBuffer(2 * 65536);
            byte[] data = random(65536, 8);
            MemorySegment.copy(MemorySegment.ofArray(data), 0, buf.segment(), 0, data.length);
            QueuePolling polling = c.queuePolling(0);
            AtomicReference<String> ranOn = new AtomicReference<>();
            IoRequest r = new IoRequest((req, error) -> ranOn.set(error == null ? Thread.currentThread().getName()
                    : error.toString()));
            ClaimingThread.onThread("own-loop", Duration.ofSeconds(60), () -> {
                ClaimingThread.claim(polling, Duration.ofSeconds(20));
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                for (int round = 0; round < 20; round++) {
                    ns.submit(r.write(128L * round, 128, buf, 0));     // 64 KiB: by R2T
                    assertEquals("own-loop", pollUntilDone(polling, ranOn, until));
                    ns.submit(r.read(128L * round, 128, buf, 65536));
                    assertEquals("own-loop", pollUntilDone(polling, ranOn, until));
                    assertEquals(-1, buf.segment().asSlice(0, 65536).mismatch(buf.segment().asSlice(65536, 65536)));
                }
                polling.release();
            });
            writeAndReadBack(ns, 0, 8192, 9); // the completion thread again
        }
    }

    /**
     * A thread asks for the queue and gives it back before the poller granted it, then stops polling, as a ublk
     * queue thread does before it sleeps: the poller must not hand the socket to it afterwards, or nobody reads
     * the connection again (the first ublk mount over TCP hung in START_DEV so, its partition-table reads never
     * completing). A chain of reads, each submitted by the last one's handler, must go on throughout.
     */
    @Test
    void aClaimGivenBackBeforeItWasGrantedLeavesTheSocketPolled() throws Exception {
        try (NvmeController c = connect(false); IoBuffer buf = c.allocateBuffer(4096)) {
            Namespace ns = c.namespace(1).orElseThrow().onQueue(0);
            QueuePolling polling = c.queuePolling(0);
            AtomicInteger done = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            IoRequest r = new IoRequest((req, e) -> {
                done.incrementAndGet();
                if (e == null && !stop.get()) {
                    ns.submit(req.read(0, 8, buf, 0));
                }
            });
            ns.submit(r.read(0, 8, buf, 0));
            try {
                ClaimingThread.onThread("fickle", Duration.ofSeconds(50), () -> {
                    for (int round = 0; round < 2_000; round++) {
                        int before = done.get();
                        var _ = polling.claim();
                        polling.release();
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        while (done.get() < before + 2) {
                            assertTrue(System.nanoTime() - until < 0, "round " + round + ": the chain stopped after "
                                    + done.get() + " reads: the socket was left to a thread that does not poll");
                            Thread.onSpinWait();
                        }
                    }
                });
            } finally {
                stop.set(true);
            }
        }
    }

    private static String pollUntilDone(QueuePolling polling, AtomicReference<String> ranOn, long until) {
        String thread;
        while ((thread = ranOn.getAndSet(null)) == null) {
            assertTrue(System.nanoTime() - until < 0, "no completion polled");
            assertTrue(polling.poll() >= 0, "the claiming thread lost the queue");
        }
        return thread;
    }

    private static void writeAndReadBack(Namespace ns, long slba, int bytes, long seed) throws Exception {
        byte[] data = random(bytes, seed);
        ns.write(slba, bytes / 512, MemorySegment.ofArray(data));
        byte[] back = new byte[bytes];
        ns.read(slba, bytes / 512, MemorySegment.ofArray(back));
        assertArrayEquals(data, back, bytes + " bytes at LBA " + slba);
    }

    private static byte[] random(int bytes, long seed) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return b;
    }
}
