package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePairState;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;

/**
 * The provider's own thread that makes one-sided operations happen without the application: it reads every
 * queue pair's socket, places RDMA Writes and Read Responses, answers Read Requests and completes receives. Like
 * an SPDK poller it busy-polls (non-blocking reads) while there is traffic and for {@code spinNanos} after the
 * last progress, then blocks in a Selector - a thread wake-up costs far more than a polled round trip.
 *
 * <p>Queue pairs whose completion queues a consumer is polling are read by that consumer (inline progress, see
 * {@link SoftiwarpCompletionQueue}); the engine skips them, and when it has nothing else to do it parks instead of
 * spinning, waking every {@link SoftiwarpCompletionQueue#INLINE_ACTIVE_NANOS} to take back queue pairs whose
 * consumer went quiet without saying so (a consumer that blocks in {@code await} resumes the engine at once).
 */
final class ProgressEngine implements Runnable {
    private static final Logger LOG = System.getLogger(ProgressEngine.class.getName());

    private final Selector selector;
    private final Thread thread;
    private final long spinNanos;
    private final ConcurrentLinkedQueue<SoftiwarpQueuePair> added = new ConcurrentLinkedQueue<>();
    private final List<SoftiwarpQueuePair> queuePairs = new ArrayList<>();
    private final AtomicBoolean sleeping = new AtomicBoolean();
    private volatile boolean parked;
    /**
     * Set by {@link #resume} and {@link #wakeup} before they look at {@code parked} and {@code sleeping}, cleared as
     * a pass begins, read after {@code parked}/{@code sleeping} is set and before the engine sleeps. Without it a
     * consumer that hands its queue pairs back after a pass saw them polled inline, but before the engine set
     * {@code parked}, woke nobody, and the socket stayed unread for a whole look period (20 ms in nvmf4j's own
     * pollers; CompletionNotifyTest makes it 60 s and catches it). Each side writes its flag, then reads the
     * other's (Dekker): either the engine sees the request or the waker sees the sleeper.
     */
    private volatile boolean wakeRequested;
    /**
     * How long a park lasts while every queue pair is read by its consumer, and a select while some queue pair is
     * muted (its consumer polls it): as long as a consumer may stay silent before the engine takes it back. Each
     * timed-out look is a wake-up of a thread that shares the consumer's core; it must not be followed by a spin
     * budget of its own, or the engine would preempt a pinned consumer on every look (bench/tail.sh shows it in the
     * consumer's tail latency). Tests lengthen it so that a missed wake-up cannot hide behind the next look.
     */
    private volatile long lookNanos = SoftiwarpCompletionQueue.INLINE_ACTIVE_NANOS;
    /** Runs on the engine thread when it has decided to sleep, before it says so (tests: a wake-up in that gap). */
    volatile Runnable beforeSleep;
    private volatile boolean running = true;
    private final java.util.function.Consumer<SelectionKey> onReady = this::ready;
    private final PeerLog failureLog = new PeerLog(LOG);
    private long failures;
    /** What the current pass over the queue pairs found (engine thread only). */
    private boolean passProgress;
    private boolean passAllInline;
    private boolean passAnyMuted;
    private boolean passAllWatched;
    /**
     * How long a park lasts at least while every queue pair's consumer sleeps watching its socket itself
     * ({@link SoftiwarpCompletionQueue#requestNotifyWatching}): such a consumer says when it stops (it disarms or
     * hands back), so the engine need not look every {@code lookNanos}; each look is a wake-up on a core the
     * consumer needs.
     */
    static final long WATCHED_LOOK_NANOS = 20_000_000L;

    ProgressEngine(String name, long spinNanos) throws IOException {
        this.selector = Selector.open();
        this.spinNanos = spinNanos;
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this);
        thread.start();
    }

    /** Hands a connected queue pair to this engine; its socket must be non-blocking. */
    void add(SoftiwarpQueuePair qp) {
        qp.engine = this;
        added.add(qp);
        selector.wakeup();
        LockSupport.unpark(thread);
    }

    /** A completion queue's consumer stops polling: take its queue pairs back now. */
    void resume() {
        wakeRequested = true;
        if (parked) {
            LockSupport.unpark(thread);
        } else if (sleeping.get()) {
            selector.wakeup(); // its queue pairs may be muted in the Selector
        }
    }

    /** Wakes the engine if it blocks in the Selector. */
    void wakeup() {
        wakeRequested = true;
        if (sleeping.get()) {
            selector.wakeup();
        }
    }

    @Override
    public void run() {
        try {
            loop();
        } catch (IOException | RuntimeException e) {
            // only the Selector itself failing gets here: without it no socket can be served
            LOG.log(Level.ERROR, "softiwarp progress engine " + thread.getName() + " failed", e);
            for (SoftiwarpQueuePair qp : queuePairs) {
                qp.enterError(DisconnectEvent.Cause.TRANSPORT_ERROR,
                        "progress engine failed: " + e, null);
            }
        } finally {
            for (SoftiwarpQueuePair qp : queuePairs) {
                qp.closing().abortLinger(); // no engine will finish their Terminates and orderly closes
            }
            SoftiwarpQueuePair late;
            while ((late = added.poll()) != null) {
                late.closing().abortLinger(); // ended before this thread registered it: its linger would never end
            }
        }
    }

    /**
     * One pass over the queue pairs, then what it earned: another pass at once after progress, a park when every
     * queue pair is read by its polling consumer, a spin within {@code spinNanos} of the last progress, else a
     * select.
     */
    private void loop() throws IOException {
        long lastProgress = System.nanoTime();
        while (running) {
            pass();
            long now = System.nanoTime();
            if (passProgress) {
                lastProgress = now;
                continue;
            }
            if (passAllInline) {
                parkWhileInline();
                lastProgress = System.nanoTime();
                continue;
            }
            if (now - lastProgress < spinNanos) {
                Thread.onSpinWait();
                continue;
            }
            select(passAnyMuted);
            // no spin budget for waking up: only a pass that reads or sends something (progress, above)
            // earns one, else one pass over the queue pairs and back to select
        }
    }

    /** Registers new queue pairs and serves each one once, newest first; sets the pass* fields. */
    private void pass() {
        // this pass sees what a waker changed before it set the flag; cleared only when set, so that the passes of
        // a busy engine that nobody asked to wake cost a volatile read, not a store and its fence
        if (wakeRequested) {
            wakeRequested = false;
        }
        passProgress = register();
        passAllInline = !queuePairs.isEmpty();
        passAllWatched = passAllInline;
        passAnyMuted = false;
        long start = System.nanoTime();
        for (int i = queuePairs.size() - 1; i >= 0; i--) {
            SoftiwarpQueuePair qp = queuePairs.get(i);
            // one connection's exception (e.g. CancelledKeyException: its socket was closed between
            // isValid() and interestOps()) ends that connection, never this thread and the others
            try {
                serve(qp, i, start);
            } catch (RuntimeException e) {
                failed(qp, e);
                passProgress = true;
            }
        }
    }

    private void serve(SoftiwarpQueuePair qp, int index, long now) {
        if (qp.state() == QueuePairState.ERROR) {
            serveEnded(qp, index);
            return;
        }
        SelectionKey key = qp.engineWatch.selectionKey;
        if (qp.inlineDriven(now)) {
            // its consumer reads the socket: stop watching it, or every arriving FPDU would wake this thread out
            // of select() for nothing (level-triggered readiness until the consumer reads)
            if (!qp.engineWatch.muted && key != null && key.isValid()) {
                key.interestOps(0);
                qp.engineWatch.muted = true;
            }
            passAnyMuted = true;
            if (!qp.watched()) {
                passAllWatched = false;
            }
            return;
        }
        passAllInline = false;
        passAllWatched = false;
        serveOwn(qp, key);
    }

    /** An ended queue pair: drop it once its end is complete, else drive its linger and its end. */
    private void serveEnded(SoftiwarpQueuePair qp, int index) {
        if (qp.finished() && !qp.closing().lingering()) {
            SelectionKey key = qp.channel == null ? null : qp.channel.keyFor(selector);
            if (key != null) {
                key.cancel();
            }
            queuePairs.remove(index);
            qp.detachFromCompletionQueues();
            return;
        }
        if (qp.closing().lingering()) {
            // a Terminate waits for room (OP_WRITE), or the peer's last input is being discarded before the close
            // (OP_READ): woken from select() rather than a park loop
            SelectionKey key = qp.engineWatch.selectionKey;
            int ops = qp.closing().interestOps();
            if (key != null && key.isValid() && key.interestOps() != ops) {
                key.interestOps(ops);
            }
            passAllInline = false;
        }
        qp.kickTx();
    }

    /** A live queue pair that no consumer polls: the engine reads its socket and retries its blocked sends. */
    private void serveOwn(SoftiwarpQueuePair qp, SelectionKey key) {
        qp.flushDeferredTx(); // posted by a consumer that stopped polling
        if (qp.engineWatch.muted) {
            if (key != null && key.isValid()) {
                key.interestOps(SelectionKey.OP_READ);
            }
            qp.engineWatch.muted = false;
        }
        if (qp.overrun) {
            qp.enterError(DisconnectEvent.Cause.TRANSPORT_ERROR, "completion queue overrun: completions were lost",
                    null);
            return;
        }
        if (qp.rxStream.busy()) {
            // its consumer is reading the socket this instant: leave the readable socket out of select, which
            // would otherwise return at once on it again and again (a busy loop on the consumer's core that
            // starves it until its inline polls look stale)
            if (key != null && key.isValid() && !qp.txBlocked) {
                key.interestOps(0);
                qp.engineWatch.muted = true;
            }
            passAnyMuted = true;
        } else if (qp.rxStream.progress()) {
            passProgress = true;
        }
        if (qp.txBlocked) {
            if (key != null && key.isValid() && (key.interestOps() & SelectionKey.OP_WRITE) == 0) {
                key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            }
            // poll the socket for room while spinning, too
            qp.txBlocked = false;
            qp.kickTx();
        }
    }

    /**
     * Every queue pair is read by its polling consumer: stay out of the way (no spinning on a core the consumers
     * need), but look again soon in case a consumer stopped polling.
     */
    private void parkWhileInline() {
        beforeSleeping();
        parked = true;
        try {
            if (added.isEmpty() && !wakeRequested) {
                LockSupport.parkNanos(this, passAllWatched ? Math.max(lookNanos, WATCHED_LOOK_NANOS) : lookNanos);
            }
        } finally {
            parked = false;
        }
    }

    /** Blocks in the Selector until a socket is ready, a wake-up, or the timeout. */
    private void select(boolean anyMuted) throws IOException {
        beforeSleeping();
        sleeping.set(true);
        try {
            if (added.isEmpty() && !wakeRequested) {
                // select(Consumer) does not fill the selected-key set: no allocation per wake-up
                // with a muted queue pair, look again soon: its consumer may stop polling without await
                selector.select(onReady, anyMuted ? Math.max(1, lookNanos / 1_000_000) : 100);
            }
        } finally {
            sleeping.set(false);
        }
    }

    private void beforeSleeping() {
        Runnable hook = beforeSleep;
        if (hook != null) {
            hook.run();
        }
    }

    /** Sets how long the engine sleeps between looks at queue pairs that consumers poll (tests). */
    void lookPeriod(long nanos) {
        lookNanos = nanos;
    }

    /**
     * A queue pair whose service threw: it alone ends (counted as ENGINE_FAILURE, logged once without a stack
     * trace at INFO; the trace goes to FINE for whoever debugs it), and the engine goes on with the others.
     */
    private void failed(SoftiwarpQueuePair qp, RuntimeException e) {
        failures++;
        qp.device.rejectedPeers().add(RejectedPeers.Reason.ENGINE_FAILURE);
        failureLog.info("softiwarp progress engine {0}: {1} failed: {2}, ending that connection", thread.getName(),
                qp, e.toString());
        LOG.log(Level.DEBUG, "engine failure of " + qp, e);
        try {
            qp.enterError(DisconnectEvent.Cause.TRANSPORT_ERROR, "progress engine: " + e, null);
        } catch (RuntimeException ignored) {
            // ending it failed too: the socket is closed below
        }
        qp.closing().abortLinger();
        java.nio.channels.SocketChannel ch = qp.channel;
        if (ch != null) {
            SelectionKey key = ch.keyFor(selector);
            if (key != null) {
                key.cancel();
            }
            ChannelIo.closeQuietly(ch);
        }
        queuePairs.remove(qp);
        try {
            qp.detachFromCompletionQueues();
        } catch (RuntimeException ignored) {
            // nothing more to undo
        }
    }

    /** Connections this engine ended because serving them threw (engine thread; for tests and diagnostics). */
    long failures() {
        return failures;
    }

    private void ready(SelectionKey key) {
        SoftiwarpQueuePair qp = (SoftiwarpQueuePair) key.attachment();
        try {
            if (key.isValid() && key.isWritable()) {
                key.interestOps(qp.state() == QueuePairState.ERROR ? qp.closing().interestOps()
                        : qp.engineWatch.muted ? 0 : SelectionKey.OP_READ);
                qp.kickTx();
            }
        } catch (RuntimeException e) {
            failed(qp, e);
        }
    }

    private boolean register() {
        boolean any = false;
        SoftiwarpQueuePair qp;
        while ((qp = added.poll()) != null) {
            try {
                qp.engineWatch.selectionKey = qp.channel.register(selector, SelectionKey.OP_READ, qp);
                queuePairs.add(qp);
                qp.attachToCompletionQueues();
                any = true;
                qp.kickTx(); // sends posted before the connection was up (e.g. in the QueuePairSetup hook)
            } catch (ClosedChannelException e) {
                qp.enterError(DisconnectEvent.Cause.TRANSPORT_ERROR, "socket closed", null);
            } catch (RuntimeException e) {
                failed(qp, e);
            }
        }
        return any;
    }

    void shutdown() {
        running = false;
        selector.wakeup();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
