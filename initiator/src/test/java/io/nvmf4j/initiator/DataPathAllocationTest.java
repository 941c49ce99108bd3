package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Steady-state 4 KiB reads and writes, and Flushes, through {@link IoRequest}s allocate nothing on the host: against the
 * project's Java target over softiwarp on 127.0.0.1 (and over NVMe/TCP), with com.sun.management.ThreadMXBean#getThreadAllocatedBytes
 * of the submitting thread (this one) and the I/O queue's completion thread over the measured window. Half the
 * I/Os are resubmitted from the completion handler (as {@code nvmf4j perf} does), half from this thread (the
 * lock-and-post path of a foreign thread). Before the reusable form, the callback form
 * ({@code submitRead/submitWrite} with reused callbacks) allocated ~840 bytes per I/O here: 33.7 MB over 40k I/Os.
 * The target's and softiwarp's threads are not measured: they are other modules' (and have their own tests).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DataPathAllocationTest {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    static final Nqn SUBNQN = Nqn.parse("nqn.2026-12.io.nvmf4j:data-path-allocation");
    static final int DEPTH = 8;
    static final int IO = 4096;
    static final int WARMUP = 12_000;
    static final int MEASURED = 20_000;
    /** Far below one 16-byte object per I/O of the window: room for a stray counter read or class init. */
    static final long BOUND_BYTES = 4096;
    /**
     * Measured windows, judged by their median: an allocation per I/O shows in every window, a one-off in one. A
     * window of the TCP run in a fork where this class ran first once held 3,824 bytes on the submitting thread
     * (the next windows of the same run: a few hundred), code still being compiled after the warm-up.
     */
    static final int WINDOWS = 3;

    private volatile int completed;
    private volatile NvmfException error;
    private volatile boolean resubmitInHandler;
    /** Written by whichever thread owns the request at the time (handler or test thread, never both). */
    private int submitted;
    private int limit;
    private Namespace ns;
    private IoBuffer buffer;
    private final IoRequest[] requests = new IoRequest[DEPTH];
    private final int[] uses = new int[DEPTH];

    /**
     * Slot s cycles: write its pattern (buffer slice s) to block s, Flush, read block s into slice DEPTH + s (a
     * commit loop's shape: the Flush goes through the same reusable request as the data).
     */
    private void issue(IoRequest r) {
        int slot = (int) r.userData();
        switch (uses[slot]++ % 3) {
            case 0 -> r.write(slot, 1, buffer, (long) slot * IO);
            case 1 -> r.flush();
            default -> r.read(slot, 1, buffer, (long) (DEPTH + slot) * IO);
        }
        ns.submit(r);
    }

    private void onCompletion(IoRequest r, NvmfException e) {
        if (e != null) {
            error = e;
        } else if (resubmitInHandler && submitted < limit) {
            submitted++;
            issue(r);
        }
        completed = completed + 1; // one completion thread: no lost update
    }

    @Test
    void steadyStateReadsWritesAndFlushesThroughIoRequestsAllocateNothing() throws Exception {
        measure(false);
    }

    /** The same over NVMe/TCP: CapsuleCmd with the write in the capsule, C2HData for the read, CapsuleResp. */
    @Test
    void overTcpTooTheyAllocateNothing() throws Exception {
        measure(true);
    }

    private void measure(boolean tcp) throws Exception {
        THREADS.setThreadAllocatedMemoryEnabled(true);
        NvmeTarget target = new NvmeTarget();
        Port port = (tcp ? Port.tcp(1, "127.0.0.1", "0") : Port.rdma(1, "127.0.0.1", "0")).build();
        Subsystem subsystem = Subsystem.builder(SUBNQN).serial("NVMF4JALLOC1").model("nvmf4j allocation")
                .allowAnyHost(true).build();
        subsystem.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(1, RamBackend.allocate(1 << 20, 4096)));
        target.addSubsystem(subsystem);
        target.addPort(port);
        port.addSubsystem(subsystem);
        try (AutoCloseable transport = tcp
                ? io.nvmf4j.target.tcp.TcpTransport.open(target, io.nvmf4j.target.tcp.TcpTransportOptions.builder()
                        .pollGroups(1).spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(8L << 20).build(),
                        TransportObserver.NONE)
                : RdmaTransport.open(target, RdmaTransportOptions.builder().provider("softiwarp")
                        .pollGroups(1).spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(8L << 20)
                        .completionQueueEntries(4096).build(), TransportObserver.NONE)) {
            int listening = transport instanceof RdmaTransport r ? r.listen(port).getPort()
                    : ((io.nvmf4j.target.tcp.TcpTransport) transport).listen(port).getPort();
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", listening);
            try (NvmeController c = NvmeController.connect(ConnectOptions.builder(address, SUBNQN)
                    .host(HostIdentity.generate()).provider("softiwarp").transport(tcp ? "tcp" : "rdma")
                    .ioQueues(1).queueSize(32).commandTimeout(Duration.ofSeconds(30)).build())) {
                ns = c.namespace(1).orElseThrow().onQueue(0);
                buffer = c.allocateBuffer(2 * DEPTH * IO);
                for (int i = 0; i < DEPTH; i++) {
                    requests[i] = new IoRequest(this::onCompletion).userData(i);
                    buffer.segment().asSlice((long) i * IO, IO).fill((byte) (0x11 * (i + 1)));
                }
                String poller = "nvmf4j-" + c.ioQueue(0).name();
                long pollerId = -1;
                for (Thread t : Thread.getAllStackTraces().keySet()) {
                    if (t.getName().equals(poller)) {
                        pollerId = t.threadId();
                    }
                }
                assertTrue(pollerId > 0, "no completion thread named " + poller);
                long[] ids = {Thread.currentThread().threadId(), pollerId};
                long[] before = new long[ids.length];
                long[] after = new long[ids.length];

                run(WARMUP);
                if (tcp) {
                    // after one round the TCP path was still being compiled: some 4 KiB of one-off allocations
                    // (the same in a bare socket loop's first round) fell in the window, none after a second
                    run(WARMUP);
                }
                long[] windows = new long[WINDOWS];
                StringBuilder perWindow = new StringBuilder();
                for (int w = 0; w < WINDOWS; w++) {
                    for (int i = 0; i < ids.length; i++) {
                        before[i] = THREADS.getThreadAllocatedBytes(ids[i]);
                    }
                    run(MEASURED);
                    for (int i = 0; i < ids.length; i++) {
                        after[i] = THREADS.getThreadAllocatedBytes(ids[i]);
                    }
                    long submitter = after[0] - before[0];
                    long completion = after[1] - before[1];
                    windows[w] = submitter + completion;
                    perWindow.append(String.format(" [submitting thread %d, completion thread %d]", submitter,
                            completion));
                }

                assertNull(error);
                long[] sorted = windows.clone();
                java.util.Arrays.sort(sorted);
                long median = sorted[WINDOWS / 2];
                System.out.printf("initiator data path (" + (tcp ? "tcp" : "rdma") + "): %s bytes allocated in windows"
                        + " of %d 4 KiB I/Os:%s%n", java.util.Arrays.toString(windows), MEASURED, perWindow);
                assertTrue(median < BOUND_BYTES, "the data path allocated a median of " + median + " bytes per "
                        + MEASURED + " I/Os; windows" + perWindow);
                // the data really moved: every slot's last read returned what it wrote
                for (int i = 0; i < DEPTH; i++) {
                    MemorySegment written = buffer.segment().asSlice((long) i * IO, IO);
                    MemorySegment read = buffer.segment().asSlice((long) (DEPTH + i) * IO, IO);
                    assertEquals(-1, written.mismatch(read), "slot " + i);
                }
            }
        } finally {
            target.close();
        }
    }

    /**
     * {@code ios} I/Os: half resubmitted by the handler at depth {@link #DEPTH}, half submitted from this thread in
     * rounds of {@link #DEPTH}. Bounded: two minutes at most (a busy machine is slow, never this slow).
     */
    private void run(int ios) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        int half = ios / 2;
        completed = 0;
        submitted = DEPTH;
        limit = half;
        resubmitInHandler = true;
        for (IoRequest r : requests) {
            issue(r);
        }
        while (completed < half && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(half, completed, "handler-resubmitted I/Os done");
        resubmitInHandler = false;
        for (int k = 0; k < ios - half; k += DEPTH) {
            int expected = completed + DEPTH;
            for (IoRequest r : requests) {
                issue(r);
            }
            while (completed < expected && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(expected, completed, "test-thread I/Os done");
        }
    }
}
