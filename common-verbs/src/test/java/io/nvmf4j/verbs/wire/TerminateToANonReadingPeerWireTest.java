package io.nvmf4j.verbs.wire;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import io.nvmf4j.verbs.conformance.GuardedRegion;
import io.nvmf4j.verbs.conformance.Loopback;
import io.nvmf4j.verbs.conformance.Patterns;
import io.nvmf4j.verbs.conformance.WorkRequests;
import io.nvmf4j.verbs.softiwarp.RejectedPeers;
import io.nvmf4j.verbs.softiwarp.SoftiwarpDevice;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue F12: a Terminate to a peer that does not read. siw sends its Terminate with MSG_DONTWAIT
 * (siw_send_terminate()); the provider used to spin the thread that ended the connection for up to 200 ms against
 * the full socket. Now nothing waits: the connection's work requests are flushed at once, the engine keeps trying
 * on OP_WRITE for the linger time, then closes the socket and counts the Terminate as undelivered.
 */
class TerminateToANonReadingPeerWireTest {
    private static final int WRITE = 4 << 20;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aTerminateToAPeerThatNeverReadsHoldsNoThreadAndTheSocketClosesAfterTheLinger() throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion big = wire.provider().registerOpen(WRITE).fill(5);
            WireBench.Handshake h = wire.handshake(false, null);
            // 32 MiB toward a peer that reads nothing: far more than both socket buffers hold
            for (int i = 0; i < 8; i++) {
                h.provider().queuePair().postSend(WorkRequests.rdmaWrite(i, big, 0, WRITE, 0x1000, 0x100));
            }
            WorkCompletion[] wc = {new WorkCompletion()};
            int done = 0;
            long quietSince = System.nanoTime();
            while (System.nanoTime() - quietSince < 300_000_000L) {
                if (wire.provider().cq().poll(wc) > 0) {
                    assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0]::toString);
                    done++;
                    quietSince = System.nanoTime();
                } else {
                    Thread.sleep(1);
                }
            }
            assertTrue(done < 8, "the socket took all 32 MiB: nothing to block on");

            // a Send with no receive posted: the provider must terminate (DDP untagged, no buffer)
            long start = System.nanoTime();
            h.raw().sendFpdu(DdpSegment.send(h.raw().takeSendMsn(), Patterns.bytes(7, 16)));
            long flushedAfter = -1;
            while (System.nanoTime() - start < 5_000_000_000L) {
                if (wire.provider().cq().poll(wc) > 0 && wc[0].status() == WcStatus.WR_FLUSH_ERR) {
                    flushedAfter = (System.nanoTime() - start) / 1_000_000;
                    break;
                }
            }
            assertTrue(flushedAfter >= 0, "the unsent writes were never flushed");
            assertTrue(flushedAfter < 180, "the writes were flushed " + flushedAfter
                    + " ms after the bad Send: a thread waited for the peer to read the Terminate");
            DisconnectEvent end = Loopback.awaitDisconnect(h.provider());
            assertEquals(DisconnectEvent.Cause.TERMINATE_SENT, end.cause(), end.detail());

            RejectedPeers rejected = ((SoftiwarpDevice) wire.bench().device()).rejectedPeers();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (rejected.count(RejectedPeers.Reason.TERMINATE_UNDELIVERED) == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(1, rejected.count(RejectedPeers.Reason.TERMINATE_UNDELIVERED), rejected::toString);
            assertEquals(1, rejected.count(RejectedPeers.Reason.TERMINATE_SENT), rejected::toString);
            assertTrue(h.raw().awaitClose(TIMEOUT).closed(), "the socket stayed open after the linger time");
        }
    }
}
