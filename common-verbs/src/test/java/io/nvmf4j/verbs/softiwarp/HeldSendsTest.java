package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thread that holds its sends (QueuePair.holdSends, what a ublk queue does while it starts a reap's requests) gets
 * a burst of posts onto the wire in one write at its flushSends, where each post would otherwise write on its own;
 * the peer receives every message, in order.
 */
@Timeout(60)
class HeldSendsTest {
    private static final int BURST = 16;
    private static final int MESSAGE = 64;

    private static SoftiwarpConfig config() {
        SoftiwarpConfig d = SoftiwarpConfig.fromSystemProperties();
        return new SoftiwarpConfig(d.engineSpinNanos(), d.cqSpinNanos(), 1, d.maxFpduPayload(), false, false,
                Duration.ofSeconds(5), d.copyThreshold());
    }

    /** Posts a burst of Sends, held or not, and returns how many socket writes the client made for it. */
    private static long burst(LoopbackPair p, boolean held, int round) throws Exception {
        SoftiwarpQueuePair client = (SoftiwarpQueuePair) p.client.queuePair();
        for (int i = 0; i < BURST; i++) {
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(100 + i)
                    .local(p.serverMr, 65536 + (long) i * MESSAGE, MESSAGE));
        }
        for (int i = 0; i < BURST; i++) {
            LoopbackPair.fill(p.clientMr.segment(), (long) i * MESSAGE, MESSAGE, round * 100 + i);
        }
        WorkCompletion[] wc = new WorkCompletion[BURST];
        for (int i = 0; i < BURST; i++) {
            wc[i] = new WorkCompletion();
        }
        long before = client.transmitter.socketWrites;
        if (held) {
            client.holdSends();
        }
        for (int i = 0; i < BURST; i++) {
            client.postSend(new SendWorkRequest().wrId(i).opcode(SendOpcode.SEND)
                    .local(p.clientMr, (long) i * MESSAGE, MESSAGE));
        }
        if (held) {
            client.flushSends();
        }
        int sent = 0;
        while (sent < BURST) {
            int n = p.clientCq.await(wc, 5, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(n > 0, "only " + sent + " of " + BURST + " sends completed within 5 s");
            for (int k = 0; k < n; k++) {
                assertEquals(WcStatus.SUCCESS, wc[k].status());
            }
            sent += n;
        }
        long writes = client.transmitter.socketWrites - before;
        for (int i = 0; i < BURST; i++) {
            WorkCompletion r = LoopbackPair.awaitOne(p.serverCq);
            assertEquals(WcOpcode.RECV, r.opcode());
            assertEquals(100 + i, r.wrId(), "messages arrive in the order they were posted");
            MemorySegment got = p.serverMr.segment().asSlice(65536 + (long) i * MESSAGE, MESSAGE);
            assertEquals(-1, got.mismatch(p.clientMr.segment().asSlice((long) i * MESSAGE, MESSAGE)));
        }
        return writes;
    }

    @Test
    void aHeldBurstOfSendsLeavesInOneWriteAndArrivesInOrder() throws Exception {
        try (LoopbackPair p = new LoopbackPair(new SoftiwarpDevice(config()), new SoftiwarpDevice(config()), null,
                null, new byte[0], new byte[0])) {
            long unheld = burst(p, false, 1);
            long held = burst(p, true, 2);
            // each unheld post runs the transmitter on this thread and writes at once; the held burst is written
            // at the flush (the engine, which flushes sends left deferred by a consumer that stopped polling, may
            // take part of it first: a few writes, never one per post)
            assertTrue(held < BURST / 2, "a held burst of " + BURST + " sends took " + held + " socket writes (unheld: "
                    + unheld + ")");
            assertTrue(unheld > held, "unheld " + unheld + " writes, held " + held);
        }
    }
}
