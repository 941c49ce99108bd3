package io.nvmf4j.verbs.wire;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.conformance.GuardedRegion;
import io.nvmf4j.verbs.conformance.Loopback;
import io.nvmf4j.verbs.conformance.Patterns;
import io.nvmf4j.verbs.conformance.WorkRequests;
import io.nvmf4j.verbs.softiwarp.RejectedPeers;
import io.nvmf4j.verbs.softiwarp.SoftiwarpDevice;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Terminate is the last thing on the stream, and it must reach the peer (RFC 5040 7.1, RFC 5044 8): a peer
 * that keeps sending after its violation leaves unread bytes in the provider's socket, and closing a TCP socket
 * with unread input makes the kernel send a reset instead of a FIN and drop whatever of ours is still queued
 * (RFC 2525 2.17, Linux tcp_close()). With the peer's window full of our RDMA Writes, the Terminate was still
 * queued at the close and never arrived: the peer read "Connection reset". The provider now shuts its output
 * down behind the Terminate and discards the peer's input, bounded, before it closes.
 */
class TerminateBeforeCloseWireTest {
    private static final int WRITE = 4 << 20;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aPeerThatKeepsSendingAfterItsViolationStillReadsTheTerminateThenAnOrderlyClose() throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion big = wire.provider().registerOpen(WRITE).fill(5);
            WireBench.Handshake h = wire.handshake(false, null); // no receive posted
            // 16 MiB of RDMA Writes toward the peer, which does not read yet: its window and our socket fill up
            // (the writes not on the wire yet are flushed when the connection ends)
            for (int i = 0; i < 4; i++) {
                h.provider().queuePair().postSend(WorkRequests.rdmaWrite(i, big, 0, WRITE, 0x1000, 0x100));
            }
            Thread.sleep(200);

            // the violation (a Send with no receive posted: DDP untagged "no buffer"), and the peer goes on
            // sending: 128 KiB more Sends the provider will never read, from another thread (they may block)
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            stream.writeBytes(Fpdu.frame(DdpSegment.send(h.raw().takeSendMsn(), Patterns.bytes(7, 64)), h.raw().crc()));
            while (stream.size() < 128 << 10) {
                stream.writeBytes(Fpdu.frame(DdpSegment.send(h.raw().takeSendMsn(), Patterns.bytes(9, 4096)),
                        h.raw().crc()));
            }
            byte[] violationAndMore = stream.toByteArray();
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    h.raw().write(violationAndMore);
                } catch (IOException closed) {
                    // the provider may close before it took everything
                }
            });

            // the peer reads slowly - 256 KiB, then a pause - as a busy host does: most of the time its window is
            // full, and so it is when the provider's Terminate finds room in the socket and the provider closes
            TerminateMessage terminate = null;
            long sinceBreak = 0;
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (terminate == null && System.nanoTime() - deadline < 0) {
                RawIwarpInitiator.ReceivedFpdu fpdu = h.raw().readFpdu(TIMEOUT);
                if (TerminateMessage.isTerminate(fpdu.ulpdu())) {
                    terminate = TerminateMessage.parse(fpdu.ulpdu());
                } else if ((sinceBreak += fpdu.ulpdu().length) >= 256 << 10) {
                    sinceBreak = 0;
                    Thread.sleep(50);
                }
            }
            assertTrue(terminate != null, "no Terminate in time");
            assertEquals(TerminateMessage.LAYER_DDP, terminate.layer(), terminate::toString);
            assertEquals(TerminateMessage.DDP_ETYPE_UNTAGGED, terminate.errorType(), terminate::toString);
            assertEquals(TerminateMessage.DDP_UT_ECODE_NO_BUFFER, terminate.errorCode(), terminate::toString);
            RawIwarpInitiator.CloseOutcome close = h.raw().awaitClose(TIMEOUT);
            assertTrue(close.closed(), "the provider kept the stream open after its Terminate");
            assertEquals(0, close.bytesBeforeClose().length, "RFC 5040 7.1: nothing after the Terminate");
            writer.join(TIMEOUT.toMillis());

            DisconnectEvent end = Loopback.awaitDisconnect(h.provider());
            assertEquals(DisconnectEvent.Cause.TERMINATE_SENT, end.cause(), end.detail());
            RejectedPeers rejected = ((SoftiwarpDevice) wire.bench().device()).rejectedPeers();
            assertEquals(1, rejected.count(RejectedPeers.Reason.TERMINATE_SENT), rejected::toString);
            assertEquals(0, rejected.count(RejectedPeers.Reason.TERMINATE_UNDELIVERED), rejected::toString);
        }
    }
}
