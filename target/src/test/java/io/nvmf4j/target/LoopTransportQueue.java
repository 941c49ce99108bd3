package io.nvmf4j.target;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transport for tests, in the spirit of Linux's nvme-loop: the "host" hands SQEs and data buffers straight to the
 * core, responses are collected in memory. Records every response and every disconnect request.
 */
final class LoopTransportQueue implements TransportQueue {

    final List<Request> responses = new CopyOnWriteArrayList<>();
    final AtomicInteger disconnects = new AtomicInteger();
    final CountDownLatch disconnected = new CountDownLatch(1);
    volatile String localAddress;
    volatile String remoteAddress;
    /** Work the core handed back to "the queue's thread": the test thread runs it in {@link #runTasksUntil}. */
    final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    /** Tasks run so far on the queue's thread. */
    final AtomicInteger tasksRun = new AtomicInteger();

    @Override
    public void queueResponse(Request request) {
        responses.add(request);
    }

    @Override
    public void runOnQueueThread(Runnable task) {
        tasks.add(task);
    }

    /**
     * The calling (test) thread acts as the queue's owning thread, like a poll group's loop: runs the tasks handed
     * to {@link #runOnQueueThread} until {@code done} holds; false if it did not within {@code millis}.
     */
    boolean runTasksUntil(java.util.function.BooleanSupplier done, long millis) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!done.getAsBoolean()) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            Runnable t;
            try {
                t = tasks.poll(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            if (t != null) {
                tasksRun.incrementAndGet();
                t.run();
            }
        }
        return true;
    }

    @Override
    public void disconnect() {
        disconnects.incrementAndGet();
        disconnected.countDown();
    }

    @Override
    public String localAddress() {
        return localAddress;
    }

    @Override
    public String remoteAddress() {
        return remoteAddress;
    }
}
