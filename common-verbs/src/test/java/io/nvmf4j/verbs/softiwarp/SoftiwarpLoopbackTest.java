package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.QueuePairState;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** End-to-end basics of softiwarp against itself over 127.0.0.1. */
@Timeout(30)
class SoftiwarpLoopbackTest {

    private static byte[] bytes(MemorySegment s, long offset, int len) {
        return s.asSlice(offset, len).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    @Test
    void connectCarriesPrivateDataBothWays() throws Exception {
        byte[] req = "hello target".getBytes(StandardCharsets.US_ASCII);
        byte[] rep = "hello host".getBytes(StandardCharsets.US_ASCII);
        try (LoopbackPair p = new LoopbackPair(null, null, req, rep)) {
            assertArrayEquals(req, p.serverSawPrivateData);
            assertArrayEquals(rep, p.client.peerPrivateData());
            assertEquals(QueuePairState.RTS, p.client.queuePair().state());
            assertEquals(QueuePairState.RTS, p.server.queuePair().state());
        }
    }

    @Test
    void sendLandsInPostedReceive() throws Exception {
        ReceiveWorkRequest[] holder = new ReceiveWorkRequest[1];
        try (LoopbackPair p = new LoopbackPair(qp -> {
        }, null, new byte[0], new byte[0])) {
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(7).local(p.serverMr, 4096, 8192));
            LoopbackPair.fill(p.clientMr.segment(), 0, 5000, 3);
            p.client.queuePair().postSend(new SendWorkRequest().wrId(1).opcode(SendOpcode.SEND).local(p.clientMr, 0, 5000));
            WorkCompletion sent = LoopbackPair.awaitOne(p.clientCq);
            assertEquals(WcStatus.SUCCESS, sent.status());
            assertEquals(WcOpcode.SEND, sent.opcode());
            WorkCompletion recv = LoopbackPair.awaitOne(p.serverCq);
            assertEquals(WcStatus.SUCCESS, recv.status());
            assertEquals(WcOpcode.RECV, recv.opcode());
            assertEquals(7, recv.wrId());
            assertEquals(5000, recv.byteLength());
            assertArrayEquals(bytes(p.clientMr.segment(), 0, 5000), bytes(p.serverMr.segment(), 4096, 5000));
        }
    }

    @Test
    void receivesAndSendsPostedInTheSetupHookWorkAsSoonAsTheConnectionIsUp() throws Exception {
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
             LoopbackPair p = new LoopbackPair(null, null, new byte[0], new byte[0])) {
            MemorySegment early = arena.allocate(64);
            early.fill((byte) 0x5a);
            // a second connection on the same devices: the server pre-posts, the client sends from its hook
            io.nvmf4j.verbs.MemoryRegion clientEarly = p.clientPd.register(early,
                    java.util.EnumSet.of(io.nvmf4j.verbs.AccessFlag.LOCAL_WRITE));
            java.util.concurrent.CompletableFuture<io.nvmf4j.verbs.RdmaConnection> accepted =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        try {
                            return p.listener.accept(java.time.Duration.ofSeconds(5)).accept(
                                    new io.nvmf4j.verbs.AcceptParams(p.serverPd, p.serverCq, p.serverCq,
                                            io.nvmf4j.verbs.QueuePairAttributes.defaults(), new byte[0],
                                            qp -> qp.postReceive(new ReceiveWorkRequest().wrId(77)
                                                    .local(p.serverMr, 512, 64))));
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                    });
            try (io.nvmf4j.verbs.RdmaConnection _ = p.clientDevice.connectionManager().connect(
                    p.listener.localAddress(), new io.nvmf4j.verbs.ConnectParams(p.clientPd, p.clientCq, p.clientCq,
                            io.nvmf4j.verbs.QueuePairAttributes.defaults(), new byte[0],
                            qp -> qp.postSend(new SendWorkRequest().wrId(78).local(clientEarly, 0, 64))),
                    java.time.Duration.ofSeconds(5));
                 io.nvmf4j.verbs.RdmaConnection s = accepted.get(5, java.util.concurrent.TimeUnit.SECONDS)) {
                WorkCompletion recv = LoopbackPair.awaitOne(p.serverCq);
                assertEquals(77, recv.wrId());
                assertEquals(WcStatus.SUCCESS, recv.status(), recv::toString);
                assertEquals(s.queuePair().number(), recv.queuePairNumber());
                assertEquals(78, LoopbackPair.awaitOne(p.clientCq).wrId());
                assertArrayEquals(bytes(early, 0, 64), bytes(p.serverMr.segment(), 512, 64));
            }
            clientEarly.close();
        }
    }

    @Test
    void rdmaWritePlacesWithoutPeerHelpAndLargeWriteIsSegmented() throws Exception {
        try (LoopbackPair p = new LoopbackPair(null, null, new byte[0], new byte[0])) {
            int len = 300_000;
            LoopbackPair.fill(p.clientMr.segment(), 0, len, 11);
            p.client.queuePair().postSend(new SendWorkRequest().wrId(2).opcode(SendOpcode.RDMA_WRITE)
                    .local(p.clientMr, 0, len).remote(p.serverMr.address() + 100, p.serverMr.rkey()));
            WorkCompletion wc = LoopbackPair.awaitOne(p.clientCq);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
            // the write is on the wire; the server's engine places it on its own: follow with a Read to fence
            p.client.queuePair().postSend(new SendWorkRequest().wrId(3).opcode(SendOpcode.RDMA_READ)
                    .local(p.clientMr, 600_000, 4).remote(p.serverMr.address() + 100, p.serverMr.rkey()));
            assertEquals(WcStatus.SUCCESS, LoopbackPair.awaitOne(p.clientCq).status());
            assertArrayEquals(bytes(p.clientMr.segment(), 0, len), bytes(p.serverMr.segment(), 100, len));
        }
    }

    @Test
    void rdmaReadFetchesRemoteMemory() throws Exception {
        try (LoopbackPair p = new LoopbackPair(null, null, new byte[0], new byte[0])) {
            int len = 70_000;
            LoopbackPair.fill(p.serverMr.segment(), 1000, len, 5);
            p.client.queuePair().postSend(new SendWorkRequest().wrId(9).opcode(SendOpcode.RDMA_READ)
                    .local(p.clientMr, 8, len).remote(p.serverMr.address() + 1000, p.serverMr.rkey()));
            WorkCompletion wc = LoopbackPair.awaitOne(p.clientCq);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(WcOpcode.RDMA_READ, wc.opcode());
            assertEquals(len, wc.byteLength());
            assertArrayEquals(bytes(p.serverMr.segment(), 1000, len), bytes(p.clientMr.segment(), 8, len));
        }
    }

    @Test
    void sendWithInvalidateEndsTheNamedWindowAtTheReceiver() throws Exception {
        try (LoopbackPair p = new LoopbackPair(null, null, new byte[0], new byte[0]);
             MemoryWindow window = p.clientPd.allocateWindow()) {
            p.client.queuePair().postReceive(new ReceiveWorkRequest().wrId(5).local(p.clientMr, 0, 64));
            int rkey = window.bind(p.clientMr, 4096, 4096, EnumSet.of(AccessFlag.REMOTE_READ));
            p.server.queuePair().postSend(new SendWorkRequest().wrId(6).opcode(SendOpcode.SEND_WITH_INVALIDATE)
                    .invalidateRkey(rkey).local(p.serverMr, 0, 16));
            assertEquals(WcStatus.SUCCESS, LoopbackPair.awaitOne(p.serverCq).status());
            WorkCompletion recv = LoopbackPair.awaitOne(p.clientCq);
            assertEquals(WcStatus.SUCCESS, recv.status());
            assertTrue(recv.withInvalidate());
            assertEquals(rkey, recv.invalidatedRkey());
            assertFalse(window.isBound());
            assertTrue(p.clientMr.isValid(), "the region under the window");
            // a Read by the server with the invalidated key is refused by the client with a Terminate
            p.server.queuePair().postSend(new SendWorkRequest().wrId(8).opcode(SendOpcode.RDMA_READ)
                    .local(p.serverMr, 0, 16).remote(p.clientMr.address() + 4096, rkey));
            WorkCompletion read = LoopbackPair.awaitOne(p.serverCq);
            assertEquals(WcStatus.REM_ACCESS_ERR, read.status());
            assertEquals(DisconnectEvent.Cause.TERMINATE_RECEIVED, waitForEnd(p.server).cause());
            assertEquals(DisconnectEvent.Cause.TERMINATE_SENT, waitForEnd(p.client).cause());
            int newKey = window.bind(p.clientMr, 4096, 4096, EnumSet.of(AccessFlag.REMOTE_READ));
            assertTrue(window.isBound());
            assertTrue(newKey != rkey);
        }
    }

    @Test
    void writeOutsideTheRegionIsRefusedAndNothingIsTouched() throws Exception {
        try (LoopbackPair p = new LoopbackPair(null, null, new byte[0], new byte[0])) {
            LoopbackPair.fill(p.clientMr.segment(), 0, 64, 1);
            p.client.queuePair().postSend(new SendWorkRequest().wrId(1).opcode(SendOpcode.RDMA_WRITE)
                    .local(p.clientMr, 0, 64).remote(p.serverMr.address() + p.serverMr.length() - 32,
                            p.serverMr.rkey()));
            assertEquals(DisconnectEvent.Cause.TERMINATE_SENT, waitForEnd(p.server).cause());
            DisconnectEvent clientEnd = waitForEnd(p.client);
            assertEquals(DisconnectEvent.Cause.TERMINATE_RECEIVED, clientEnd.cause());
            assertTrue(clientEnd.detail().contains("base or bounds"), clientEnd.detail());
            byte[] tail = bytes(p.serverMr.segment(), p.serverMr.length() - 32, 32);
            assertArrayEquals(new byte[32], tail);
        }
    }

    static DisconnectEvent waitForEnd(io.nvmf4j.verbs.RdmaConnection c) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (c.disconnectEvent() == null && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(c.disconnectEvent() != null, "connection did not end");
        return c.disconnectEvent();
    }
}
