package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumer that keeps its receive queue full - it reposts each receive as soon as it polls its completion, like
 * a target's poll group - must always find the slot free: the receive queue is a lock-free ring between the poster
 * and the receiver, and a completion may not become visible before its slot is released. The sender keeps at
 * most a queue's worth of messages unanswered (iWARP has no receiver-not-ready flow control: a Send without a
 * posted receive ends the connection, RFC 5040 7.1), as an NVMe host bounds its commands by the queue size.
 */
@Timeout(60)
class ReceiveQueueRepostTest {
    private static final int MESSAGES = 4000;
    private static final int SLOT = 64;
    private static final int BATCH = 64;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    @Test
    void receiveRepostedOnItsCompletionAlwaysFitsTheFullQueueAndMessagesArriveInOrder() throws Exception {
        try (LoopbackPair p = new LoopbackPair(qp -> {
        }, null, new byte[0], new byte[0])) {
            int depth = p.server.queuePair().attributes().maxRecvWr();
            ReceiveWorkRequest recv = new ReceiveWorkRequest();
            for (int i = 0; i < depth; i++) {
                p.server.queuePair().postReceive(recv.wrId(i).local(p.serverMr, (long) i * SLOT, SLOT));
            }
            AtomicInteger reposted = new AtomicInteger();
            CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
                WorkCompletion[] wc = {new WorkCompletion()};
                ReceiveWorkRequest repost = new ReceiveWorkRequest();
                try {
                    for (int expected = 0; expected < MESSAGES; expected++) {
                        assertEquals(1, p.serverCq.await(wc, 10, TimeUnit.SECONDS), "message " + expected);
                        assertEquals(WcStatus.SUCCESS, wc[0].status(), "message " + expected);
                        assertEquals(WcOpcode.RECV, wc[0].opcode());
                        int slot = (int) wc[0].wrId();
                        assertEquals(expected % depth, slot, "receives complete in posting order");
                        assertEquals(expected, p.serverMr.segment().get(INT, (long) slot * SLOT),
                                "the message landed in its receive's buffer");
                        // at once, as a poll group does: QUEUE_FULL here would mean the slot was not free yet
                        p.server.queuePair().postReceive(repost.wrId(slot).local(p.serverMr, (long) slot * SLOT,
                                SLOT));
                        reposted.incrementAndGet();
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            SendWorkRequest send = new SendWorkRequest();
            for (int sent = 0; sent < MESSAGES; sent += BATCH) {
                for (int i = sent; i < sent + BATCH; i++) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (i - reposted.get() >= depth) { // the receiver's queue is full: wait for its consumer
                        if (server.isDone()) {
                            server.join(); // throws what failed the receiver (e.g. QUEUE_FULL on a repost)
                        }
                        assertTrue(System.nanoTime() < deadline, "receiver stalled");
                        Thread.onSpinWait();
                    }
                    p.clientMr.segment().set(INT, (long) i * 4, i);
                    p.client.queuePair().postSend(send.wrId(i).opcode(SendOpcode.SEND)
                            .local(p.clientMr, (long) i * 4, 4));
                }
                for (int i = sent; i < sent + BATCH; i++) {
                    assertEquals(WcStatus.SUCCESS, LoopbackPair.awaitOne(p.clientCq).status());
                }
            }
            server.get(30, TimeUnit.SECONDS);
        }
    }
}
