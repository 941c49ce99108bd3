package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The intermittent failure of a clean-clone CI run (StagAttackTest: the connection CLOSED instead of the target's
 * Terminate, about 1 in 6 runs; bench/under-attack.sh: about 5 plain closes per 100 attacks). The receive that a
 * refused Send with Invalidate consumes completes with REM_INV_REQ_ERR, and the NVMe target disconnects the
 * moment it sees it. That completion used to become visible before the Terminate was recorded, so the target's
 * disconnect could win and close the stream without it. siw records the Terminate first (siw_init_terminate()
 * before siw_rqe_complete() in siw_rdmap_complete()) and sends it whoever drops the connection; so does softiwarp
 * now.
 */
@Timeout(120)
class TerminateBeforeDisconnectTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final int ROUNDS = 20;

    @Test
    void anApplicationThatDisconnectsOnTheRefusedInvalidationStillLetsTheTerminateOut() throws Exception {
        // no inline progress: the engine runs the receiver while the application spins on the ring, so the
        // application sees the completion the moment it is published, as a poll group does
        SoftiwarpConfig noInline = new SoftiwarpConfig(50_000L, 50_000L, 1, 16384, false, false,
                Duration.ofSeconds(10), SoftiwarpConfig.DEFAULT_COPY_THRESHOLD, false);
        try (Arena arena = Arena.ofShared();
             SoftiwarpDevice target = new SoftiwarpDevice(noInline);
             SoftiwarpDevice attacker = new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties())) {
            ProtectionDomain pd = target.allocatePd();
            CompletionQueue cq = target.createCompletionQueue(64);
            MemoryRegion inbox = pd.register(arena.allocate(4096, 64), EnumSet.of(AccessFlag.LOCAL_WRITE));
            ProtectionDomain attackerPd = attacker.allocatePd();
            CompletionQueue attackerCq = attacker.createCompletionQueue(64);
            MemoryRegion attackerBuffer = attackerPd.register(arena.allocate(64, 64),
                    EnumSet.of(AccessFlag.LOCAL_WRITE));
            int plainCloses = 0;
            StringBuilder ends = new StringBuilder();
            try (RdmaListener listener = target.connectionManager()
                    .listen(new InetSocketAddress("127.0.0.1", 0), 8)) {
                WorkCompletion[] wc = {new WorkCompletion()};
                for (int round = 0; round < ROUNDS; round++) {
                    CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() -> {
                        try {
                            ConnectRequest req = listener.accept(WAIT);
                            return req.accept(new AcceptParams(pd, cq, cq, QueuePairAttributes.defaults(),
                                    new byte[0], null));
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                    });
                    RdmaConnection peer = attacker.connectionManager().connect(listener.localAddress(),
                            new ConnectParams(attackerPd, attackerCq, attackerCq, QueuePairAttributes.defaults(),
                                    new byte[0], null), WAIT);
                    RdmaConnection server = accepted.get(5, TimeUnit.SECONDS);
                    server.queuePair().postReceive(new ReceiveWorkRequest().wrId(round).local(inbox, 0, 4096));
                    // STag 0x195: nothing of the target's (RFC 5040 4.8: "STag cannot be invalidated")
                    peer.queuePair().postSend(new SendWorkRequest().wrId(round)
                            .opcode(SendOpcode.SEND_WITH_INVALIDATE).invalidateRkey(0x195)
                            .local(attackerBuffer, 0, 16));
                    long deadline = System.nanoTime() + WAIT.toNanos();
                    while (cq.poll(wc) == 0) {
                        assertTrue(System.nanoTime() - deadline < 0, "the refused receive never completed");
                        Thread.onSpinWait();
                    }
                    server.close(); // what the NVMe target does on a failed receive: disconnect at once
                    assertEquals(WcStatus.REM_INV_REQ_ERR, wc[0].status(), wc[0]::toString);

                    DisconnectEvent end = SoftiwarpLoopbackTest.waitForEnd(peer);
                    if (end.cause() != DisconnectEvent.Cause.TERMINATE_RECEIVED) {
                        plainCloses++;
                        ends.append("\n  round ").append(round).append(": ").append(end);
                    }
                    peer.close();
                    while (attackerCq.poll(wc) > 0) {
                        // the peer's send completion, if any
                    }
                }
            }
            assertEquals(0, plainCloses, "rounds where the peer saw the connection end without the Terminate:"
                    + ends);
            assertEquals(ROUNDS, target.rejectedPeers().count(RejectedPeers.Reason.TERMINATE_SENT));
        }
    }
}
