package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import io.nvmf4j.uring.IoUring;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thread that submits on an I/O queue takes over its completion polling ({@link NvmeController#queuePolling}):
 * the completions it polls run their callbacks on it, the queue's own completion thread takes over again when it
 * gives the queue back, a thread that sleeps keeping the queue is woken by its completion, a thread that does not
 * hold the queue cannot poll it, and a controller closed while a thread holds its queue closes (softiwarp on
 * loopback, the project's Java target, a RAM namespace).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QueuePollingAgainstJavaTargetTest {

    static final Nqn SUBNQN = Nqn.parse("nqn.2026-12.io.nvmf4j:queue-polling");
    static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(20);
    static final Duration CLAIM_BOUND = Duration.ofNanos(DEADLINE_NANOS);
    static final Duration THREAD_BOUND = Duration.ofSeconds(60);

    private NvmeTarget target;
    private RdmaTransport transport;
    private InetSocketAddress address;

    /** The thread each completion's handler ran on. */
    private final BlockingQueue<String> ranOn = new ArrayBlockingQueue<>(64);
    private final IoCompletionHandler handler = (r, e) -> ranOn.add(e == null ? Thread.currentThread().getName()
            : "failed: " + e.getMessage());

    @BeforeEach
    void startTarget() throws Exception {
        target = new NvmeTarget();
        Port port = Port.rdma(1, "127.0.0.1", "0").build();
        Subsystem subsystem = Subsystem.builder(SUBNQN).serial("NVMF4JPOLL1").model("nvmf4j queue polling")
                .allowAnyHost(true).build();
        subsystem.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(1, RamBackend.allocate(1L << 20, 512)));
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
                .provider("softiwarp").ioQueues(1).queueSize(16).commandTimeout(Duration.ofSeconds(15)).build());
    }

    /** Polls on this thread until one completion's handler has run, within the deadline; the thread it ran on. */
    private String pollUntilDone(QueuePolling polling) {
        long until = System.nanoTime() + DEADLINE_NANOS;
        String thread;
        while ((thread = ranOn.poll()) == null) {
            assertTrue(System.nanoTime() - until < 0, "no completion polled within 20 s");
            assertTrue(polling.poll() >= 0, "the claiming thread lost the queue");
        }
        return thread;
    }

    @Test
    void theClaimingThreadRunsTheCallbacksOfWhatItPollsAndGivesTheQueueBack() throws Exception {
        try (NvmeController c = connect(); IoBuffer buf = c.allocateBuffer(8192)) {
            Namespace ns = c.namespace(1).orElseThrow().onQueue(0);
            QueuePolling polling = c.queuePolling(0);
            MemorySegment out = buf.segment().asSlice(0, 4096);
            for (int i = 0; i < 4096; i++) {
                out.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 1));
            }
            IoRequest r = new IoRequest(handler);
            ClaimingThread.onThread("ublk-like", THREAD_BOUND, () -> {
                ClaimingThread.claim(polling, CLAIM_BOUND);
                for (int round = 0; round < 50; round++) {
                    ns.submit(r.write(8L * round, 8, buf, 0));
                    assertEquals("ublk-like", pollUntilDone(polling));
                    ns.submit(r.read(8L * round, 8, buf, 4096));
                    assertEquals("ublk-like", pollUntilDone(polling));
                    assertEquals(-1, out.mismatch(buf.segment().asSlice(4096, 4096)), "round " + round);
                }
                polling.release();
                assertEquals(-1, polling.poll(), "a thread that gave the queue back polls no more");
            });
            // the queue's completion thread polls again
            ns.submit(r.read(0, 8, buf, 4096));
            String thread = ranOn.poll(20, TimeUnit.SECONDS);
            assertTrue(thread != null && thread.startsWith("nvmf4j-"), "completion thread took over: " + thread);
        }
    }

    @Test
    void aThreadThatSleepsKeepingTheQueueIsWokenByTheCompletionAndRunsItsCallback() throws Exception {
        try (NvmeController c = connect(); IoBuffer buf = c.allocateBuffer(4096)) {
            Namespace ns = c.namespace(1).orElseThrow().onQueue(0);
            QueuePolling polling = c.queuePolling(0);
            IoRequest r = new IoRequest(handler);
            java.util.concurrent.Semaphore woken = new java.util.concurrent.Semaphore(0);
            Runnable wake = woken::release;
            ClaimingThread.onThread("sleeper", THREAD_BOUND, () -> {
                ClaimingThread.claim(polling, CLAIM_BOUND);
                for (int round = 0; round < 50; round++) {
                    // armed first, so the read's completion cannot come before: a completion still in the CQ (the
                    // last read's send) makes it say so, and the thread polls instead of sleeping
                    long until = System.nanoTime() + DEADLINE_NANOS;
                    long bound;
                    while ((bound = polling.wakeOnCompletion(wake)) == 0) {
                        assertTrue(System.nanoTime() - until < 0, "round " + round + ": never armed");
                        assertTrue(polling.poll() >= 0, "the claiming thread lost the queue");
                    }
                    assertEquals(TimeUnit.MILLISECONDS.toNanos(20), bound, "sleeps at most a tick");
                    ns.submit(r.read(0, 8, buf, 0));
                    // sleeps, as the ublk thread does in io_uring_enter; only the wake can end this wait
                    assertTrue(woken.tryAcquire(20, TimeUnit.SECONDS), "round " + round + ": not woken in 20 s");
                    assertNull(ranOn.peek(), "round " + round + ": another thread handled the completion");
                    polling.cancelWake();
                    assertEquals("sleeper", pollUntilDone(polling), "round " + round);
                }
                polling.release();
            });
            assertEquals(0, woken.availablePermits(), "a wake ran once per arming");
        }
    }

    /**
     * The ublk thread's other way to sleep: it watches the connection's socket in its io_uring itself
     * ({@link QueuePolling#wakeOnCompletionWatching}); the answer's arrival wakes it, and its own poll runs the
     * callback. 50 rounds. The wake may come instead in a round armed while the softiwarp engine was serving the
     * connection (it had taken it back from a poller it found stale): still woken, never left asleep.
     */
    @Test
    void aThreadThatSleepsWatchingTheConnectionIsWokenByItsAnswerAndReadsItItself() throws Exception {
        assumeTrue(IoUring.unavailableReason() == null, "io_uring: " + IoUring.unavailableReason());
        try (NvmeController c = connect(); IoBuffer buf = c.allocateBuffer(4096)) {
            Namespace ns = c.namespace(1).orElseThrow().onQueue(0);
            QueuePolling polling = c.queuePolling(0);
            IoRequest r = new IoRequest(handler);
            java.util.concurrent.atomic.AtomicInteger wakes = new java.util.concurrent.atomic.AtomicInteger();
            Runnable wake = wakes::incrementAndGet;
            java.util.concurrent.atomic.AtomicInteger socketWakes = new java.util.concurrent.atomic.AtomicInteger();
            ClaimingThread.onThread("watcher", THREAD_BOUND, () -> {
                ClaimingThread.claim(polling, CLAIM_BOUND);
                try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
                    MemorySegment timespec = arena.allocate(16, 8);
                    for (int round = 0; round < 50; round++) {
                        int wakesBefore = wakes.get();
                        long until = System.nanoTime() + DEADLINE_NANOS;
                        while (polling.wakeOnCompletionWatching(wake) == 0) {
                            assertTrue(System.nanoTime() - until < 0, "round " + round + ": never armed");
                            assertTrue(polling.poll() >= 0, "the claiming thread lost the queue");
                        }
                        int fd = polling.waitDescriptor();
                        assertTrue(fd >= 0, "round " + round + ": no descriptor to watch");
                        ns.submit(r.read(0, 8, buf, 0));
                        long watch = 100L + round; // each round's poll told apart from an earlier one's late CQE
                        assertTrue(ring.preparePollAdd(fd, IoUring.POLLIN, watch));
                        // sleeps as the ublk thread does, until the socket or the wake: the wake runs when the
                        // engine was still serving the connection as the thread armed (it had looked stale)
                        boolean[] socket = {false};
                        while (!socket[0] && wakes.get() == wakesBefore) {
                            assertTrue(System.nanoTime() - until < 0, "round " + round + ": not woken in 20 s");
                            assertTrue(ring.prepareTimeout(timespec, TimeUnit.MILLISECONDS.toNanos(1), 2));
                            ring.submitAndWait(1);
                            ring.reap((userData, result, flags) -> socket[0] |= userData == watch && result > 0);
                        }
                        if (socket[0]) {
                            socketWakes.incrementAndGet();
                        } else {
                            assertTrue(ring.prepareCancel(watch, 3)); // the watch lets the socket go
                        }
                        assertNull(ranOn.peek(), "round " + round + ": another thread handled the completion");
                        polling.cancelWake();
                        assertEquals("watcher", pollUntilDone(polling), "round " + round);
                    }
                }
                polling.release();
            });
            // the watch, not the engine's reading of the socket, woke the thread (all 50 but a rare race)
            assertTrue(socketWakes.get() > 0, "the socket never woke the thread; the wake ran " + wakes.get()
                    + " times");
        }
    }

    @Test
    void aClaimGivenBackBeforeItWasGrantedLeavesTheQueuePolled() throws Exception {
        try (NvmeController c = connect(); IoBuffer buf = c.allocateBuffer(4096)) {
            Namespace ns = c.namespace(1).orElseThrow().onQueue(0);
            QueuePolling polling = c.queuePolling(0);
            java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            // a chain of reads, each submitted by the previous one's handler: the completion thread keeps polling
            IoRequest r = new IoRequest((req, e) -> {
                done.incrementAndGet();
                if (e == null && !stop.get()) {
                    ns.submit(req.read(0, 8, buf, 0));
                }
            });
            ns.submit(r.read(0, 8, buf, 0));
            try {
                ClaimingThread.onThread("fickle", THREAD_BOUND, () -> {
                    // a thread asks for the queue and gives it back at once, then stops polling, as a ublk queue
                    // thread does before it sleeps: however the grant and the give-back interleave, the chain
                    // must go on, polled by the completion thread
                    for (int round = 0; round < 10_000; round++) {
                        int before = done.get();
                        var _ = polling.claim();
                        polling.release();
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        while (done.get() < before + 2) {
                            assertTrue(System.nanoTime() - until < 0, "round " + round + ": the chain stopped after "
                                    + done.get() + " reads: the queue was left to a thread that does not poll");
                            Thread.onSpinWait();
                        }
                    }
                });
            } finally {
                stop.set(true);
            }
        }
    }

    @Test
    void aThreadThatHasNotClaimedTheQueueCannotPollIt() throws Exception {
        try (NvmeController c = connect(); IoBuffer buf = c.allocateBuffer(4096)) {
            QueuePolling polling = c.queuePolling(0);
            assertEquals(-1, polling.poll());
            polling.release(); // a no-op for a thread that holds nothing
            Namespace ns = c.namespace(1).orElseThrow().onQueue(0);
            ns.submit(new IoRequest(handler).read(0, 8, buf, 0));
            String thread = ranOn.poll(20, TimeUnit.SECONDS);
            assertTrue(thread != null && thread.startsWith("nvmf4j-"), "the completion thread still polls: " + thread);
        }
    }

    @Test
    void aControllerClosedWhileAThreadHoldsItsQueueClosesAndTheThreadIsRefused() throws Exception {
        NvmeController c = connect();
        QueuePolling polling = c.queuePolling(0);
        CompletableFuture<Void> claimed = new CompletableFuture<>();
        CompletableFuture<Void> closed = new CompletableFuture<>();
        CompletableFuture<Integer> after = new CompletableFuture<>();
        Thread.ofPlatform().name("holder").start(() -> {
            try {
                ClaimingThread.claim(polling, CLAIM_BOUND);
                claimed.complete(null);
                closed.get(60, TimeUnit.SECONDS);
                after.complete(polling.poll());
            } catch (Throwable t) {
                after.completeExceptionally(t);
                claimed.completeExceptionally(t);
            }
        });
        claimed.get(30, TimeUnit.SECONDS);
        c.close(); // the completion thread, parked for the holder, must see the end: no hang (the class timeout)
        closed.complete(null);
        assertEquals(-1, after.get(30, TimeUnit.SECONDS), "the holder cannot poll a closed controller's queue");
        assertNull(ranOn.poll());
    }
}
