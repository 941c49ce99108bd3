package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue F1: a peer's Send with Invalidate may end only what a peer may invalidate - a memory window of the queue
 * pair's domain - never a region made by {@code register} (IBA; Linux rxe_invalidate_mr()), least of all local-only
 * memory such as a target's buffer pool. A refused invalidation is a Terminate (RDMAP "STag cannot be invalidated",
 * RFC 5040 4.8) that ends the sender's connection only. And STag keys are random: one STag does not give away
 * the others.
 */
@Timeout(60)
class RemoteInvalidationTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    /** A target-like side: one device, one PD, one CQ, a listener. */
    private static final class Target implements AutoCloseable {
        final Arena arena = Arena.ofShared();
        final RdmaDevice device;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final RdmaListener listener;

        Target() throws Exception {
            device = new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties());
            pd = device.allocatePd();
            cq = device.createCompletionQueue(64);
            listener = device.connectionManager().listen(new InetSocketAddress("127.0.0.1", 0), 8);
        }

        /** Connects a fresh client device; returns {server side, client side}. */
        RdmaConnection[] connect(RdmaDevice clientDevice, ProtectionDomain clientPd, CompletionQueue clientCq)
                throws Exception {
            CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    ConnectRequest req = listener.accept(WAIT);
                    return req.accept(new AcceptParams(pd, cq, cq, QueuePairAttributes.defaults(), new byte[0],
                            null));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            RdmaConnection client = clientDevice.connectionManager().connect(listener.localAddress(),
                    new ConnectParams(clientPd, clientCq, clientCq, QueuePairAttributes.defaults(), new byte[0], null),
                    WAIT);
            return new RdmaConnection[] {accepted.get(5, TimeUnit.SECONDS), client};
        }

        @Override
        public void close() {
            listener.close();
            device.close();
            arena.close();
        }
    }

    @Test
    void oneSendWithInvalidateCannotDisableALocalOnlyBufferPool() throws Exception {
        try (Target target = new Target();
             RdmaDevice attackerDevice = new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties());
             RdmaDevice hostDevice = new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties())) {
            // the target's pool: local access only, as a target's data buffers are
            MemoryRegion pool = target.pd.register(target.arena.allocate(65536, 4096),
                    EnumSet.of(AccessFlag.LOCAL_WRITE));
            MemoryRegion inbox = target.pd.register(target.arena.allocate(4096, 64),
                    EnumSet.of(AccessFlag.LOCAL_WRITE));

            ProtectionDomain attackerPd = attackerDevice.allocatePd();
            CompletionQueue attackerCq = attackerDevice.createCompletionQueue(16);
            MemoryRegion attackerBuffer = attackerPd.register(target.arena.allocate(64, 64),
                    EnumSet.of(AccessFlag.LOCAL_WRITE));
            RdmaConnection[] attack = target.connect(attackerDevice, attackerPd, attackerCq);
            attack[0].queuePair().postReceive(new ReceiveWorkRequest().wrId(1).local(inbox, 0, 4096));
            attack[1].queuePair().postSend(new SendWorkRequest().wrId(2).opcode(SendOpcode.SEND_WITH_INVALIDATE)
                    .invalidateRkey(pool.rkey()).local(attackerBuffer, 0, 16));

            DisconnectEvent attackerEnd = SoftiwarpLoopbackTest.waitForEnd(attack[1]);
            assertEquals(DisconnectEvent.Cause.TERMINATE_RECEIVED, attackerEnd.cause(), attackerEnd.detail());
            assertTrue(attackerEnd.detail().contains("remote protection error: STag cannot be invalidated"),
                    attackerEnd.detail());
            WorkCompletion refused = LoopbackPair.awaitOne(target.cq);
            assertEquals(WcStatus.REM_INV_REQ_ERR, refused.status(), refused::toString);
            assertFalse(refused.withInvalidate());
            assertTrue(pool.isValid(), "the pool after a peer tried to invalidate it");

            // the pool keeps working: the target writes a host's buffer from it and reads into it
            ProtectionDomain hostPd = hostDevice.allocatePd();
            CompletionQueue hostCq = hostDevice.createCompletionQueue(16);
            MemoryRegion hostBuffer = hostPd.register(target.arena.allocate(8192, 4096),
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE));
            RdmaConnection[] host = target.connect(hostDevice, hostPd, hostCq);
            LoopbackPair.fill(pool.segment(), 0, 4096, 11);
            LoopbackPair.fill(hostBuffer.segment(), 4096, 4096, 23);
            host[0].queuePair().postSend(new SendWorkRequest().wrId(3).opcode(SendOpcode.RDMA_WRITE)
                    .local(pool, 0, 4096).remote(hostBuffer.address(), hostBuffer.rkey())
                    .next(new SendWorkRequest().wrId(4).opcode(SendOpcode.RDMA_READ).local(pool, 8192, 4096)
                            .remote(hostBuffer.address() + 4096, hostBuffer.rkey())));
            WorkCompletion write = LoopbackPair.awaitOne(target.cq);
            WorkCompletion read = LoopbackPair.awaitOne(target.cq);
            assertEquals(WcStatus.SUCCESS, write.status(), write::toString);
            assertEquals(WcStatus.SUCCESS, read.status(), read::toString);
            assertArrayEquals(bytes(pool.segment(), 0), bytes(hostBuffer.segment(), 0));
            assertArrayEquals(bytes(hostBuffer.segment(), 4096), bytes(pool.segment(), 8192));
            assertEquals(null, host[0].disconnectEvent());
        }
    }

    @Test
    void sendWithInvalidateOfAWindowOfAnotherProtectionDomainIsRefused() throws Exception {
        try (Target target = new Target();
             RdmaDevice attackerDevice = new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties())) {
            ProtectionDomain otherPd = target.device.allocatePd();
            MemoryRegion other = otherPd.register(target.arena.allocate(4096, 4096),
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND));
            MemoryWindow window = otherPd.allocateWindow();
            int rkey = window.bind(other, 0, 4096, EnumSet.of(AccessFlag.REMOTE_WRITE));
            MemoryRegion inbox = target.pd.register(target.arena.allocate(4096, 64),
                    EnumSet.of(AccessFlag.LOCAL_WRITE));
            ProtectionDomain attackerPd = attackerDevice.allocatePd();
            CompletionQueue attackerCq = attackerDevice.createCompletionQueue(16);
            MemoryRegion attackerBuffer = attackerPd.register(target.arena.allocate(64, 64),
                    EnumSet.of(AccessFlag.LOCAL_WRITE));
            RdmaConnection[] attack = target.connect(attackerDevice, attackerPd, attackerCq);
            attack[0].queuePair().postReceive(new ReceiveWorkRequest().wrId(1).local(inbox, 0, 4096));
            attack[1].queuePair().postSend(new SendWorkRequest().wrId(2).opcode(SendOpcode.SEND_WITH_INVALIDATE)
                    .invalidateRkey(rkey).local(attackerBuffer, 0, 16));
            DisconnectEvent attackerEnd = SoftiwarpLoopbackTest.waitForEnd(attack[1]);
            assertEquals(DisconnectEvent.Cause.TERMINATE_RECEIVED, attackerEnd.cause(), attackerEnd.detail());
            assertTrue(attackerEnd.detail().contains("STag cannot be invalidated"), attackerEnd.detail());
            assertTrue(window.isBound(), "a window of another domain after a peer tried to invalidate it");
        }
    }

    @Test
    void stagKeysAreRandomSoOneStagDoesNotGiveAwayTheOthers() throws Exception {
        // the same registrations on two fresh devices: with predictable keys both got the same STags
        Set<Integer> keysAtIndexOne = new HashSet<>();
        int[] first = null;
        boolean allEqual = true;
        for (int d = 0; d < 8; d++) {
            try (Arena arena = Arena.ofConfined();
                 RdmaDevice device = new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties())) {
                ProtectionDomain pd = device.allocatePd();
                int[] stags = new int[16];
                for (int i = 0; i < stags.length; i++) {
                    stags[i] = pd.register(arena.allocate(64, 64), EnumSet.of(AccessFlag.LOCAL_WRITE)).rkey();
                }
                keysAtIndexOne.add(stags[0] & 0xff);
                if (first == null) {
                    first = stags;
                } else if (!java.util.Arrays.equals(first, stags)) {
                    allEqual = false;
                }
            }
        }
        assertFalse(allEqual, "eight fresh devices handed out the same STags");
        assertTrue(keysAtIndexOne.size() > 1, "the first region's key was the same on eight devices");
    }

    @Test
    void aReusedStagIndexNeverGetsTheKeyItHadBefore() throws Exception {
        try (Arena arena = Arena.ofConfined();
             RdmaDevice device = new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties())) {
            ProtectionDomain pd = device.allocatePd();
            MemorySegment memory = arena.allocate(64, 64);
            int previous = pd.register(memory, EnumSet.of(AccessFlag.LOCAL_WRITE)).rkey();
            for (int i = 0; i < 2000; i++) {
                MemoryRegion mr = pd.register(memory, EnumSet.of(AccessFlag.LOCAL_WRITE));
                mr.close();
                int again = pd.register(memory, EnumSet.of(AccessFlag.LOCAL_WRITE)).rkey();
                // the freed index goes to the next registration; its key must differ from the freed one's
                assertTrue(again != mr.rkey(), "index reused with its previous key");
                previous = again;
            }
            assertTrue(previous != 0);
        }
    }

    private static byte[] bytes(MemorySegment s, long offset) {
        return s.asSlice(offset, 4096).toArray(ValueLayout.JAVA_BYTE);
    }
}
