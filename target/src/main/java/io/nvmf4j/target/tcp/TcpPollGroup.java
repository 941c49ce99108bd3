package io.nvmf4j.target.tcp;

import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.backend.BackendIo;
import io.nvmf4j.target.backend.BackendIoMode;
import io.nvmf4j.target.backend.BackendSettings;
import io.nvmf4j.target.poll.SpinBudget;
import io.nvmf4j.target.rdma.RejectReason;
import io.nvmf4j.target.rdma.TransportObserver;
import io.nvmf4j.uring.IoUringException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One poll-group thread of the TCP transport (nvmet-tcp's per-CPU io_work, SPDK's {@code spdk_nvmf_tcp_poll_group}):
 * it owns a set of non-blocking connections, a pool of data buffers and the backend I/O of its queues, and runs
 * every request of its queues without locks; no thread per connection. While there is work, and for the spin
 * budget after it ({@link SpinBudget}, the policy the RDMA poll group follows), it polls each connection's socket
 * directly (a non-blocking read, no selector); then it blocks in its {@link Selector} until a socket is ready, a
 * task arrives ({@link #execute}) or a short wait ends (backend operations cannot wake a selector). Work from other threads (a new connection, a response completed elsewhere,
 * shutdown) arrives through {@link #execute}.
 */
final class TcpPollGroup implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(TcpPollGroup.class.getName());
    /**
     * How often timeouts are checked (they are seconds; this is their grain), and the longest idle block: shorter
     * than {@link SpinBudget#BLOCK_MILLIS}, since the TCP timeouts are checked in this loop's housekeeping and a
     * selector wake-up costs no completion-queue spin.
     */
    private static final long HOUSEKEEPING_NANOS = 100_000_000L;
    private static final long IDLE_WAIT_MILLIS = 100;
    private static final long BACKEND_DRAIN_NANOS = 10_000_000_000L;

    private final int id;
    private final TcpTransportOptions options;
    private final TransportObserver observer;
    private final RejectLog rejectLog;
    private final Selector selector;
    private final BackendIo backendIo;
    private final long backendTimeoutNanos;
    private final TcpBufferPool pool;
    /** Requests waiting for a pool buffer, oldest first. */
    private final ArrayDeque<TcpRequest> bufferWaiters = new ArrayDeque<>(256);
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final List<TcpQueue> queues = new ArrayList<>();
    private final AtomicInteger queueCount = new AtomicInteger();
    private final Consumer<SelectionKey> onReady = this::ready;
    private final SpinBudget spin;
    private final Thread thread;
    private volatile boolean running = true;
    private long nextHousekeeping;
    private boolean loopFailureLogged;

    TcpPollGroup(int id, TcpTransportOptions options, long largestTransfer, TransportObserver observer,
                 RejectLog rejectLog, BackendSettings backend) throws IOException {
        this.id = id;
        this.options = options;
        this.observer = observer;
        this.rejectLog = rejectLog;
        this.pool = new TcpBufferPool(options.bufferPoolBytes(), largestTransfer);
        this.selector = Selector.open();
        try {
            this.backendIo = BackendIo.open(backend.mode(), backend.ringEntries(), "tcp poll group " + id);
        } catch (IoUringException e) {
            selector.close();
            throw new IOException("tcp poll group " + id + ": cannot set up io_uring: " + e.getMessage(), e);
        }
        this.backendTimeoutNanos = backend.timeout().toNanos();
        this.spin = new SpinBudget(options.spinBudget().toNanos(), backendIo.mode() == BackendIoMode.THREADS,
                System.nanoTime());
        this.thread = new Thread(this::run, "nvmf4j-tcp-poll-group-" + id);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    TransportObserver observer() {
        return observer;
    }

    int maxH2cData() {
        return options.maxH2cData();
    }

    /** The largest data transfer a queue on {@code port} may ask for: MDTS, capped by the largest buffer. */
    long maxTransfer(Port port) {
        return Math.min(port.maxDataTransferBytes(), pool.largest());
    }

    /**
     * The most pool memory one queue may hold ({@link TcpBufferQuota}): a quarter of the pool, at least one
     * largest buffer, as the RDMA transport's default share.
     */
    long queueBufferLimit() {
        return Math.max(options.bufferPoolBytes() / 4, pool.largest());
    }

    BackendIo backendIo() {
        return backendIo;
    }

    boolean isPollThread() {
        return Thread.currentThread() == thread;
    }

    long threadId() {
        return thread.threadId();
    }

    int queueCount() {
        return queueCount.get();
    }

    void reportRejected(RejectReason reason, String detail) {
        observer.peerRejected(reason);
        rejectLog.log(reason, "tcp poll group " + id, detail);
    }

    // ---- connections ----

    /** Takes an accepted connection (any thread): it is served on this group's thread from now on. */
    void adopt(SocketChannel channel, NvmeTarget target, Port port, Runnable releaseUnconnected) {
        queueCount.incrementAndGet();
        execute(() -> {
            TcpQueue q;
            try {
                channel.configureBlocking(false);
                channel.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
                q = new TcpQueue(this, channel, target, port, releaseUnconnected);
                q.attach(channel.register(selector, SelectionKey.OP_READ, q));
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.DEBUG, "tcp poll group {0}: connection lost before it was served: {1}", id,
                        e.toString());
                queueCount.decrementAndGet();
                releaseUnconnected.run();
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // already gone
                }
                return;
            }
            if (!running) {
                q.close(null, "transport closing");
                return;
            }
            queues.add(q);
        });
    }

    /** {@code q} is closed and the core holds none of its requests any more. */
    void queueGone(TcpQueue q) {
        if (queues.remove(q)) {
            queueCount.decrementAndGet();
        }
    }

    /** Something threw while serving {@code q}: that connection ends, nothing else. */
    void failed(TcpQueue q, RuntimeException e) {
        if (!q.closing()) {
            LOG.log(Level.ERROR, q + ": unexpected failure; closing the connection", e);
        }
        try {
            q.close(RejectReason.INTERNAL_ERROR, "internal error: " + e);
        } catch (RuntimeException again) {
            LOG.log(Level.ERROR, "{0}: closing failed too ({1})", q, again.toString());
            queueGone(q);
        }
    }

    // ---- buffers ----

    DataBlock takeBuffer(long length) {
        return bufferWaiters.isEmpty() ? pool.take(length) : null; // first come, first served
    }

    void giveBuffer(DataBlock b) {
        pool.give(b);
    }

    void waitForBuffer(TcpRequest r) {
        bufferWaiters.addLast(r);
    }

    void stopWaiting(TcpRequest r) {
        var _ = bufferWaiters.remove(r);
    }

    /** Freed buffers go to the waiting requests, oldest first. */
    private boolean serveWaiters() {
        boolean any = false;
        TcpRequest r;
        while ((r = bufferWaiters.peekFirst()) != null) {
            DataBlock b = pool.take(r.transferLength);
            if (b == null) {
                break;
            }
            var _ = bufferWaiters.pollFirst();
            any = true;
            try {
                r.queue.haveBuffer(r, b);
            } catch (RuntimeException e) {
                failed(r.queue, e);
            }
        }
        return any;
    }

    // ---- the loop ----

    /** Runs {@code task} on the poll thread (soon; never inline). */
    void execute(Runnable task) {
        tasks.add(task);
        if (!isPollThread()) {
            selector.wakeup();
        }
    }

    private void run() {
        long start = System.nanoTime();
        spin.worked(start);
        nextHousekeeping = start + HOUSEKEEPING_NANOS;
        while (running) {
            try {
                iterate();
            } catch (RuntimeException | IOException e) {
                observer.peerRejected(RejectReason.INTERNAL_ERROR);
                if (!loopFailureLogged) {
                    loopFailureLogged = true;
                    LOG.log(Level.ERROR, "tcp poll group " + id + ": unexpected failure in the poll loop", e);
                } else {
                    LOG.log(Level.WARNING, "tcp poll group {0}: unexpected failure in the poll loop: {1}", id,
                            e.toString());
                }
            }
        }
        runTasks();
    }

    /** One round: tasks, every socket, the backend, buffer waiters, timeouts; then spin or block. */
    private void iterate() throws IOException {
        boolean worked = runTasks();
        for (int i = 0; i < queues.size(); i++) {
            TcpQueue q = queues.get(i);
            try {
                worked |= q.poll();
            } catch (RuntimeException e) {
                failed(q, e);
            }
        }
        if (backendIo.poll() > 0) {
            worked = true;
        }
        if (!bufferWaiters.isEmpty() && serveWaiters()) {
            worked = true;
        }
        long now = System.nanoTime();
        if (now - nextHousekeeping >= 0) {
            housekeeping(now);
        }
        if (worked) {
            spin.worked(now);
            return;
        }
        boolean backendBusy = backendIo.inFlight() > 0;
        if (spin.spin(now, backendBusy)) {
            return;
        }
        if (!tasks.isEmpty()) {
            return;
        }
        int ready = selector.select(onReady, backendBusy ? SpinBudget.BACKEND_WAIT_MILLIS : IDLE_WAIT_MILLIS);
        if (ready > 0) {
            spin.worked(System.nanoTime());
        }
    }

    /** A socket is ready after the loop blocked: serve it now. */
    private void ready(SelectionKey key) {
        TcpQueue q = (TcpQueue) key.attachment();
        try {
            var _ = q.poll();
        } catch (RuntimeException e) {
            failed(q, e);
        }
    }

    private void housekeeping(long now) {
        nextHousekeeping = now + HOUSEKEEPING_NANOS;
        var _ = backendIo.expire(now, backendTimeoutNanos);
        for (int i = 0; i < queues.size(); i++) {
            TcpQueue q = queues.get(i);
            try {
                q.checkTimeouts(now, options);
            } catch (RuntimeException e) {
                failed(q, e);
            }
        }
    }

    private boolean runTasks() {
        boolean any = false;
        Runnable t;
        while ((t = tasks.poll()) != null) {
            any = true;
            try {
                t.run();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "tcp poll group " + id + ": task failed", e);
            }
        }
        return any;
    }

    /** Closes every connection, stops the thread, waits (bounded) for backend operations, frees the buffers. */
    @Override
    public void close() {
        execute(() -> {
            for (TcpQueue q : List.copyOf(queues)) {
                q.close(null, "target shutting down");
            }
        });
        running = false;
        selector.wakeup();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.log(Level.WARNING, "tcp poll group {0}: thread did not stop", id);
            return;
        }
        long end = System.nanoTime() + BACKEND_DRAIN_NANOS;
        while (backendIo.inFlight() > 0 && System.nanoTime() < end) {
            if (backendIo.poll() == 0) {
                Thread.onSpinWait();
            }
        }
        backendIo.close();
        pool.close();
        try {
            selector.close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "tcp poll group {0}: closing the selector: {1}", id, e.getMessage());
        }
    }
}
