package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.QueuePairState;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The provider's own thread that makes one-sided operations happen without the application: it reads every
 * queue pair's socket, places RDMA Writes and Read Responses, answers Read Requests and completes receives. Like
 * an SPDK poller it busy-polls (non-blocking reads) while there is traffic and for {@code spinNanos} after the
 * last progress, then blocks in a Selector - a thread wake-up costs far more than a polled round trip.
 */
final class ProgressEngine implements Runnable {
    private static final Logger LOG = Logger.getLogger(ProgressEngine.class.getName());

    private final Selector selector;
    private final Thread thread;
    private final long spinNanos;
    private final ConcurrentLinkedQueue<SoftiwarpQueuePair> added = new ConcurrentLinkedQueue<>();
    private final List<SoftiwarpQueuePair> queuePairs = new ArrayList<>();
    private final AtomicBoolean sleeping = new AtomicBoolean();
    private volatile boolean running = true;
    private final java.util.function.Consumer<SelectionKey> onReady = ProgressEngine::ready;

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
    }

    /** Wakes the engine if it blocks in the Selector. */
    void wakeup() {
        if (sleeping.get()) {
            selector.wakeup();
        }
    }

    @Override
    public void run() {
        long lastProgress = System.nanoTime();
        try {
            while (running) {
                boolean progress = register();
                for (int i = queuePairs.size() - 1; i >= 0; i--) {
                    SoftiwarpQueuePair qp = queuePairs.get(i);
                    if (qp.state() == QueuePairState.ERROR) {
                        if (qp.finished()) {
                            SelectionKey key = qp.channel == null ? null : qp.channel.keyFor(selector);
                            if (key != null) {
                                key.cancel();
                            }
                            queuePairs.remove(i);
                        } else {
                            qp.kickTx();
                        }
                        continue;
                    }
                    try {
                        if (qp.receiver.poll()) {
                            progress = true;
                        }
                    } catch (RuntimeException e) {
                        // e.g. the arena of a registered region was closed: this connection cannot go on
                        LOG.log(Level.WARNING, "softiwarp QP " + qp.number() + " receive failed", e);
                        qp.enterError(io.nvmf4j.verbs.DisconnectEvent.Cause.TRANSPORT_ERROR,
                                "receive failed: " + e, null);
                        continue;
                    }
                    if (qp.txBlocked) {
                        SelectionKey key = qp.channel.keyFor(selector);
                        if (key != null && key.isValid() && (key.interestOps() & SelectionKey.OP_WRITE) == 0) {
                            key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                        }
                        // poll the socket for room while spinning, too
                        qp.txBlocked = false;
                        qp.kickTx();
                    }
                }
                long now = System.nanoTime();
                if (progress) {
                    lastProgress = now;
                    continue;
                }
                if (now - lastProgress < spinNanos) {
                    Thread.onSpinWait();
                    continue;
                }
                sleeping.set(true);
                try {
                    if (added.isEmpty()) {
                        // select(Consumer) does not fill the selected-key set: no allocation per wake-up
                        selector.select(onReady, 100);
                    }
                } finally {
                    sleeping.set(false);
                }
                lastProgress = System.nanoTime();
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.SEVERE, "softiwarp progress engine " + thread.getName() + " failed", e);
            for (SoftiwarpQueuePair qp : queuePairs) {
                qp.enterError(io.nvmf4j.verbs.DisconnectEvent.Cause.TRANSPORT_ERROR,
                        "progress engine failed: " + e, null);
            }
        }
    }

    private static void ready(SelectionKey key) {
        if (key.isValid() && key.isWritable()) {
            key.interestOps(SelectionKey.OP_READ);
            ((SoftiwarpQueuePair) key.attachment()).kickTx();
        }
    }

    private boolean register() {
        boolean any = false;
        SoftiwarpQueuePair qp;
        while ((qp = added.poll()) != null) {
            try {
                qp.channel.register(selector, SelectionKey.OP_READ, qp);
                queuePairs.add(qp);
                any = true;
                qp.kickTx(); // sends posted before the connection was up (e.g. in the QueuePairSetup hook)
            } catch (ClosedChannelException e) {
                qp.enterError(io.nvmf4j.verbs.DisconnectEvent.Cause.TRANSPORT_ERROR, "socket closed", null);
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
