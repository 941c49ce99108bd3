package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Reusable {@link IoRequest}s against the project's Java target over softiwarp on loopback: a RAM namespace of
 * 512-byte blocks, MDTS 32 KiB (so 64 blocks per request).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IoRequestAgainstJavaTargetTest {

    static final Nqn SUBNQN = Nqn.parse("nqn.2026-12.io.nvmf4j:io-request");
    static final long NS_BYTES = 1L << 20;

    private NvmeTarget target;
    private RdmaTransport transport;
    private InetSocketAddress address;

    /** One completion as the handler saw it. */
    record Done(IoRequest request, NvmfException error, String thread) {
    }

    private final BlockingQueue<Done> done = new ArrayBlockingQueue<>(64);
    private final IoCompletionHandler handler = (r, e) -> done.add(new Done(r, e, Thread.currentThread().getName()));

    @BeforeEach
    void startTarget() throws Exception {
        target = new NvmeTarget();
        Port port = Port.rdma(1, "127.0.0.1", "0").mdts(3).build();
        Subsystem subsystem = Subsystem.builder(SUBNQN).serial("NVMF4JIOREQ1").model("nvmf4j io request")
                .allowAnyHost(true).build();
        subsystem.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(1, RamBackend.allocate(NS_BYTES, 512)));
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
        if (transport != null) {
            transport.close();
        }
        target.close();
    }

    private NvmeController connect() throws NvmfException {
        return NvmeController.connect(ConnectOptions.builder(address, SUBNQN).host(HostIdentity.generate())
                .provider("softiwarp").ioQueues(2).queueSize(16).commandTimeout(Duration.ofSeconds(15)).build());
    }

    private Done next() throws InterruptedException {
        Done d = done.poll(20, TimeUnit.SECONDS);
        assertTrue(d != null, "no completion within 20 s");
        return d;
    }

    @Test
    void oneRequestWritesThenReadsBackTheSameBytesAndIsReusedEachTime() throws Exception {
        try (NvmeController c = connect(); IoBuffer buf = c.allocateBuffer(64 * 1024)) {
            Namespace ns = c.namespace(1).orElseThrow();
            assertEquals(64, ns.maxBlocksPerRequest(), "MDTS 32 KiB of 512-byte blocks");
            MemorySegment out = buf.segment().asSlice(0, 32 * 1024);
            MemorySegment in = buf.segment().asSlice(32 * 1024, 32 * 1024);
            for (int i = 0; i < out.byteSize(); i++) {
                out.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
            }
            IoRequest r = new IoRequest(handler).userData(42);
            ns.submit(r.write(100, 64, buf, 0).fua(true));
            Done w = next();
            assertNull(w.error());
            assertTrue(w.request() == r && r.userData() == 42 && !r.inFlight() && r.statusField() == 0);
            assertTrue(w.thread().startsWith("nvmf4j-"), "handler ran on a completion thread: " + w.thread());

            ns.onQueue(1).submit(r.read(100, 64, buf, 32 * 1024));
            assertNull(next().error());
            assertEquals(-1, out.mismatch(in));
            assertFalse(r.fua(), "read() resets FUA");

            // a part of it, at an offset inside both buffer and namespace
            in.fill((byte) 0);
            ns.submit(r.read(108, 8, buf, 32 * 1024 + 512));
            assertNull(next().error());
            assertEquals(-1, out.asSlice(8 * 512, 8 * 512).mismatch(in.asSlice(512, 8 * 512)));
        }
    }

    @Test
    void anNvmeErrorReachesTheHandlerAsAStatusException() throws Exception {
        try (NvmeController c = connect(); IoBuffer buf = c.allocateBuffer(4096)) {
            Namespace ns = c.namespace(1).orElseThrow();
            IoRequest r = new IoRequest(handler);
            ns.submit(r.read(ns.blockCount() - 2, 4, buf, 0));
            Done d = next();
            NvmfStatusException e = assertInstanceOf(NvmfStatusException.class, d.error());
            assertEquals(StatusCode.LBA_RANGE, e.statusCode().orElseThrow());
            assertEquals(e.status().toField(), r.statusField());
            assertTrue(e.getMessage().startsWith("Read nsid 1 slba " + (ns.blockCount() - 2) + " blocks 4"),
                    e.getMessage());
            // and the same request works again afterwards
            ns.submit(r.read(0, 4, buf, 0));
            assertNull(next().error());
            assertEquals(0, r.statusField());
        }
    }

    @Test
    void misuseIsRefusedBeforeAnythingIsSent() throws Exception {
        try (NvmeController c = connect(); IoBuffer buf = c.allocateBuffer(64 * 1024)) {
            Namespace ns = c.namespace(1).orElseThrow();
            IoRequest r = new IoRequest(handler);
            assertThrows(IllegalArgumentException.class, () -> ns.submit(r.read(0, 65, buf, 0)), "above MDTS");
            assertThrows(IllegalArgumentException.class, () -> ns.submit(r.read(0, 8, buf, 64 * 1024 - 512)),
                    "past the end of the buffer");
            assertThrows(IllegalArgumentException.class, () -> ns.submit(r.read(0, 0, buf, 0)), "no blocks");
            assertFalse(r.inFlight());
            r.read(0, 1, buf, 0).arm(1, 512); // as a submit does: now in flight
            assertThrows(IllegalStateException.class, () -> ns.submit(r), "submitted twice");
            assertThrows(IllegalStateException.class, () -> r.write(0, 1, buf, 0), "changed in flight");
            r.disarm();
            ns.submit(r);
            assertNull(next().error());
            assertTrue(done.isEmpty(), "exactly one completion per submission");
        }
    }

    @Test
    void aFlushGoesThroughTheSameReusableRequestAsTheData() throws Exception {
        try (NvmeController c = connect(); IoBuffer buf = c.allocateBuffer(4096)) {
            Namespace ns = c.namespace(1).orElseThrow();
            IoRequest r = new IoRequest(handler);
            ns.submit(r.write(8, 8, buf, 0));
            assertNull(next().error());

            ns.submit(r.flush());
            Done flushed = next();
            assertNull(flushed.error());
            assertTrue(flushed.request() == r && r.isFlush() && !r.inFlight() && r.statusField() == 0);
            assertTrue(flushed.thread().startsWith("nvmf4j-"), "on a completion thread: " + flushed.thread());
            assertNull(r.buffer(), "a Flush carries no data");
            assertThrows(IllegalStateException.class, () -> r.fua(true), "a Flush has no FUA bit");

            ns.submit(r.read(8, 8, buf, 0));   // and the same request reads again
            assertNull(next().error());
            assertFalse(r.isFlush());
        }
    }

    /** The handler contract of IoCompletionHandler: a refused submission completes inside submit, on its caller. */
    @Test
    void afterCloseTheHandlerRunsOnTheSubmittingThreadBeforeSubmitReturns() throws Exception {
        NvmeController c = connect();
        Namespace ns = c.namespace(1).orElseThrow();
        c.close();
        IoRequest r = new IoRequest(handler);
        ns.submit(r.flush());
        Done d = done.poll();
        assertTrue(d != null, "the handler ran before submit returned");
        assertEquals(Thread.currentThread().getName(), d.thread());
        NvmfControllerLostException e = assertInstanceOf(NvmfControllerLostException.class, d.error());
        assertTrue(e.getMessage().contains("Flush nsid 1"), e.getMessage());
        assertFalse(r.inFlight());
    }

    /** ...and a request the controller could not reconnect for within ctrl-loss-tmo fails on the controller thread. */
    @Test
    void whenTheTargetStaysAwayTheRequestFailsOnTheControllerThreadAfterCtrlLossTmo() throws Exception {
        try (NvmeController c = NvmeController.connect(ConnectOptions.builder(address, SUBNQN)
                .host(HostIdentity.generate()).provider("softiwarp").ioQueues(1).queueSize(16)
                .ctrlLossTimeout(Duration.ofSeconds(2)).reconnectDelay(Duration.ofMillis(300))
                .connectTimeout(Duration.ofSeconds(2)).build())) {
            Namespace ns = c.namespace(1).orElseThrow();
            transport.close();
            transport = null;
            IoRequest r = new IoRequest(handler);
            ns.submit(r.flush());
            Done d = next();
            NvmfControllerLostException e = assertInstanceOf(NvmfControllerLostException.class, d.error());
            assertTrue(e.getMessage().contains("ctrl-loss-tmo"), e.getMessage());
            assertTrue(d.thread().startsWith("nvmf4j-ctrl-"), "failed on the controller thread: " + d.thread());
        }
    }
}
