package io.nvmf4j.verbs.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nvmf4j.uring.IoUring;
import io.nvmf4j.verbs.CompletionQueue.Notify;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A consumer that sleeps on something else (a ublk queue's io_uring) keeps its completion queue and is called back
 * at the next completion ({@code requestNotify}, the completion-channel model of {@code ibv_req_notify_cq}): the
 * progress engine reads the socket meanwhile, and the push of what it read runs the handler once; or it keeps the
 * socket and watches it itself ({@code requestNotifyWatching}), and only other threads' pushes call it back.
 */
@Timeout(60)
class CompletionNotifyTest {

    private static SoftiwarpDevice inlineDevice() {
        SoftiwarpConfig d = SoftiwarpConfig.fromSystemProperties();
        return new SoftiwarpDevice(new SoftiwarpConfig(d.engineSpinNanos(), d.cqSpinNanos(), 1, d.maxFpduPayload(),
                false, false, Duration.ofSeconds(5), d.copyThreshold(), true));
    }

    /** A connected pair whose server completion queue polls its socket inline when its consumer polls. */
    private static LoopbackPair inlinePair() throws Exception {
        return new LoopbackPair(inlineDevice(), inlineDevice(), null, null, new byte[0], new byte[0]);
    }

    private static void pollInlineFor(LoopbackPair p, long millis) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < until) {
            assertEquals(0, p.serverCq.poll(wc)); // the engine leaves the socket to this consumer
        }
    }

    private static void send(LoopbackPair p, long wrId) throws Exception {
        p.client.queuePair().postSend(new SendWorkRequest().wrId(wrId).opcode(SendOpcode.SEND)
                .local(p.clientMr, 0, 64));
    }

    private static WorkCompletion pollOne(LoopbackPair p) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            if (p.serverCq.poll(wc) == 1) {
                return wc[0];
            }
        }
        throw new AssertionError("no completion within 5 s");
    }

    @Test
    void aConsumerThatPolledInlineAndThenSleepsIsCalledBackByTheEngine() throws Exception {
        try (LoopbackPair p = inlinePair()) {
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(3).local(p.serverMr, 0, 64));
            pollInlineFor(p, 20);
            CountDownLatch called = new CountDownLatch(1);
            AtomicReference<Thread> caller = new AtomicReference<>();
            AtomicInteger calls = new AtomicInteger();
            Runnable handler = () -> {
                caller.set(Thread.currentThread());
                calls.incrementAndGet();
                called.countDown();
            };
            assertEquals(Notify.ARMED, p.serverCq.requestNotify(handler));
            send(p, 4); // only the server's engine can read it now: the consumer has stopped polling
            assertTrue(called.await(5, TimeUnit.SECONDS), "the handler did not run within 5 s");
            assertNotSame(Thread.currentThread(), caller.get());
            WorkCompletion wc = pollOne(p);
            assertEquals(WcOpcode.RECV, wc.opcode());
            assertEquals(3, wc.wrId());
            // one-shot: a second completion without arming again does not call it
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(5).local(p.serverMr, 0, 64));
            send(p, 6);
            assertEquals(5, pollOne(p).wrId());
            assertEquals(1, calls.get());
        }
    }

    /**
     * The engine saw the queue pair polled inline and decided to park; before it parks, the consumer stops polling
     * and arms its handler (handing the socket back). The engine must not then sleep through a look period: here
     * one of 60 s, so a missed wake-up cannot hide behind the next look.
     */
    @Test
    void aHandBackJustBeforeTheEngineParksStillHasTheSocketRead() throws Exception {
        try (LoopbackPair p = inlinePair()) {
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(3).local(p.serverMr, 0, 64));
            ProgressEngine engine = ((SoftiwarpQueuePair) p.server.queuePair()).engine;
            engine.lookPeriod(TimeUnit.SECONDS.toNanos(60));
            CountDownLatch engineInGap = new CountDownLatch(1);
            CountDownLatch consumerStopped = new CountDownLatch(1);
            CountDownLatch called = new CountDownLatch(1);
            AtomicReference<Notify> armed = new AtomicReference<>();
            engine.beforeSleep = () -> {
                engine.beforeSleep = null;
                engineInGap.countDown();
                try {
                    // the consumer's last poll is over: it now hands back, from this gap, as a sleeper would
                    if (consumerStopped.await(5, TimeUnit.SECONDS)) {
                        armed.set(p.serverCq.requestNotify(called::countDown));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            WorkCompletion[] wc = {new WorkCompletion()};
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (engineInGap.getCount() > 0 && System.nanoTime() < deadline) {
                assertEquals(0, p.serverCq.poll(wc)); // polling inline: the engine parks instead of reading
            }
            consumerStopped.countDown();
            assertTrue(engineInGap.await(5, TimeUnit.SECONDS), "the engine never decided to park");
            send(p, 4);
            assertTrue(called.await(5, TimeUnit.SECONDS), "the engine slept through the hand-back");
            assertEquals(Notify.ARMED, armed.get());
            assertEquals(3, pollOne(p).wrId());
        }
    }

    @Test
    void armingWhileACompletionWaitsSaysReadyAndArmsNothing() throws Exception {
        try (LoopbackPair p = inlinePair()) {
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(3).local(p.serverMr, 0, 64));
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(5).local(p.serverMr, 64, 64));
            CountDownLatch pushed = new CountDownLatch(1);
            assertEquals(Notify.ARMED, p.serverCq.requestNotify(pushed::countDown));
            send(p, 4);
            assertTrue(pushed.await(5, TimeUnit.SECONDS), "the first handler did not run within 5 s");
            // the completion is in the ring, not yet polled: a consumer about to sleep must poll instead
            AtomicInteger calls = new AtomicInteger();
            assertEquals(Notify.READY, p.serverCq.requestNotify(calls::incrementAndGet));
            send(p, 6);
            assertEquals(3, pollOne(p).wrId());
            assertEquals(5, pollOne(p).wrId());
            assertEquals(0, calls.get(), "a READY answer left a handler armed");
        }
    }

    @Test
    void aCancelledHandlerIsNotCalled() throws Exception {
        try (LoopbackPair p = inlinePair()) {
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(3).local(p.serverMr, 0, 64));
            AtomicInteger calls = new AtomicInteger();
            assertEquals(Notify.ARMED, p.serverCq.requestNotify(calls::incrementAndGet));
            p.serverCq.cancelNotify();
            send(p, 4);
            assertEquals(3, pollOne(p).wrId());
            assertEquals(0, calls.get());
        }
    }

    /** Waits, in an io_uring as a ublk queue thread does, for {@code fd} to be readable: true, or false after 5 s. */
    private static boolean readableWithin5s(int fd) throws Exception {
        try (IoUring ring = IoUring.open(4); Arena arena = Arena.ofConfined()) {
            long[] first = {0};
            assertTrue(ring.preparePollAdd(fd, IoUring.POLLIN, 1));
            assertTrue(ring.prepareTimeout(arena.allocate(16, 8), TimeUnit.SECONDS.toNanos(5), 2));
            ring.submitAndWait(1);
            ring.reap((userData, result, flags) -> {
                if (first[0] == 0) {
                    first[0] = result > 0 ? userData : -userData;
                }
            });
            return first[0] == 1;
        }
    }

    /**
     * A consumer that sleeps watching its queue pair's socket itself (an io_uring poll on the descriptor) keeps the
     * socket: the engine, looking every millisecond, does not read what arrives (it would run the handler), the
     * socket's readability wakes the consumer, and its own poll reads the message.
     */
    @Test
    void aConsumerWatchingTheSocketItselfIsWokenByItAndReadsTheMessage() throws Exception {
        assumeTrue(IoUring.unavailableReason() == null, "io_uring: " + IoUring.unavailableReason());
        try (LoopbackPair p = inlinePair()) {
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(3).local(p.serverMr, 0, 64));
            ProgressEngine engine = ((SoftiwarpQueuePair) p.server.queuePair()).engine;
            engine.lookPeriod(TimeUnit.MILLISECONDS.toNanos(1));
            pollInlineFor(p, 20);
            AtomicInteger calls = new AtomicInteger();
            assertEquals(Notify.WATCHING, p.serverCq.requestNotifyWatching(calls::incrementAndGet));
            int fd = p.serverCq.waitDescriptor();
            assertTrue(fd >= 0, "no descriptor to watch");
            send(p, 4);
            assertTrue(readableWithin5s(fd), "the socket never became readable to the watcher");
            // the engine has had passes since: each would have taken the socket back and read it
            AtomicInteger sleeps = new AtomicInteger();
            engine.beforeSleep = sleeps::incrementAndGet;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (sleeps.get() < 3 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            engine.beforeSleep = null;
            assertTrue(sleeps.get() >= 3, "the engine did not look again within 5 s");
            assertEquals(0, calls.get(), "the engine read the watched socket and called the handler");
            p.serverCq.cancelNotify();
            assertEquals(-1, p.serverCq.waitDescriptor());
            assertEquals(3, pollOne(p).wrId());
            assertEquals(0, calls.get());
        }
    }

    /** What another thread pushes (a local close flushing the receive) still calls a watching consumer back. */
    @Test
    void aWatchedQueuePairClosedByAnotherThreadCallsTheWatcherBack() throws Exception {
        try (LoopbackPair p = inlinePair()) {
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(3).local(p.serverMr, 0, 64));
            pollInlineFor(p, 20);
            CountDownLatch called = new CountDownLatch(1);
            assertEquals(Notify.WATCHING, p.serverCq.requestNotifyWatching(called::countDown));
            Thread closer = Thread.ofPlatform().start(() -> p.server.queuePair().close());
            assertTrue(called.await(5, TimeUnit.SECONDS), "the watcher was not called back");
            closer.join(5000);
            WorkCompletion wc = pollOne(p);
            assertEquals(3, wc.wrId());
            assertNotEquals(io.nvmf4j.verbs.WcStatus.SUCCESS, wc.status());
        }
    }

    @Test
    void closingTheQueueCallsTheSleeperBack() throws Exception {
        try (LoopbackPair p = inlinePair()) {
            CountDownLatch called = new CountDownLatch(1);
            assertEquals(Notify.ARMED, p.serverCq.requestNotify(called::countDown));
            p.serverCq.close();
            assertTrue(called.await(5, TimeUnit.SECONDS));
        }
    }
}
