package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.QueuePairSetup;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two softiwarp devices connected over 127.0.0.1, with one registered 1 MiB buffer each. */
final class LoopbackPair implements AutoCloseable {
    final Arena arena = Arena.ofShared();
    final RdmaDevice serverDevice;
    final RdmaDevice clientDevice;
    final ProtectionDomain serverPd;
    final ProtectionDomain clientPd;
    final CompletionQueue serverCq;
    final CompletionQueue clientCq;
    final MemoryRegion serverMr;
    final MemoryRegion clientMr;
    final RdmaListener listener;
    RdmaConnection server;
    RdmaConnection client;
    byte[] serverSawPrivateData;

    LoopbackPair(QueuePairSetup serverSetup, QueuePairSetup clientSetup, byte[] requestData, byte[] replyData)
            throws Exception {
        this(RdmaProviders.byName("softiwarp").openDevice(null), RdmaProviders.byName("softiwarp").openDevice(null),
                serverSetup, clientSetup, requestData, replyData);
    }

    LoopbackPair(RdmaDevice serverDevice, RdmaDevice clientDevice, QueuePairSetup serverSetup,
                 QueuePairSetup clientSetup, byte[] requestData, byte[] replyData) throws Exception {
        this(serverDevice, clientDevice, serverSetup, clientSetup, requestData, replyData, false);
    }

    /**
     * @param directBuffers register the two buffers from {@code ByteBuffer.allocateDirect} (their payloads then go
     *                      out of the registered memory in a gathering write) instead of from an arena
     */
    LoopbackPair(RdmaDevice serverDevice, RdmaDevice clientDevice, QueuePairSetup serverSetup,
                 QueuePairSetup clientSetup, byte[] requestData, byte[] replyData, boolean directBuffers)
            throws Exception {
        this.serverDevice = serverDevice;
        this.clientDevice = clientDevice;
        serverPd = serverDevice.allocatePd();
        clientPd = clientDevice.allocatePd();
        serverCq = serverDevice.createCompletionQueue(256);
        clientCq = clientDevice.createCompletionQueue(256);
        EnumSet<AccessFlag> all = EnumSet.allOf(AccessFlag.class);
        serverMr = directBuffers ? serverPd.register(directBuffer(1 << 20), all)
                : serverPd.register(arena.allocate(1 << 20, 4096), all);
        clientMr = directBuffers ? clientPd.register(directBuffer(1 << 20), all)
                : clientPd.register(arena.allocate(1 << 20, 4096), all);
        listener = serverDevice.connectionManager().listen(new InetSocketAddress("127.0.0.1", 0), 8);
        CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() -> {
            try {
                ConnectRequest req = listener.accept(Duration.ofSeconds(5));
                serverSawPrivateData = req.privateData();
                return req.accept(new AcceptParams(serverPd, serverCq, serverCq, QueuePairAttributes.defaults(),
                        replyData, serverSetup));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        client = clientDevice.connectionManager().connect(listener.localAddress(),
                new ConnectParams(clientPd, clientCq, clientCq, QueuePairAttributes.defaults(), requestData,
                        clientSetup), Duration.ofSeconds(5));
        server = accepted.get(5, TimeUnit.SECONDS);
    }

    /** A page-aligned direct buffer of {@code size} bytes. */
    static ByteBuffer directBuffer(int size) {
        return ByteBuffer.allocateDirect(size + 4096).alignedSlice(4096).slice(0, size);
    }

    static MemorySegment fill(MemorySegment s, long offset, int len, int seed) {
        for (int i = 0; i < len; i++) {
            s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, offset + i, (byte) (seed + i * 7));
        }
        return s;
    }

    /**
     * One round trip with this thread polling both completion queues, never awaiting (so only inline progress or
     * the engines move data): the receives posted, the client's {@code ping}, the server's {@code pong} sent when the
     * ping arrived; returns once the pong and both Sends completed. Every completion must be a success.
     */
    void pollPingPong(ReceiveWorkRequest serverRecv, ReceiveWorkRequest clientRecv, SendWorkRequest ping,
                      SendWorkRequest pong, WorkCompletion[] wc) throws VerbsException {
        server.queuePair().postReceive(serverRecv);
        client.queuePair().postReceive(clientRecv);
        client.queuePair().postSend(ping);
        boolean clientGotPong = false;
        int sendsDone = 0;
        while (!clientGotPong || sendsDone < 2) {
            int n = serverCq.poll(wc);
            for (int k = 0; k < n; k++) {
                assertEquals(WcStatus.SUCCESS, wc[k].status());
                if (wc[k].opcode() == WcOpcode.RECV) {
                    server.queuePair().postSend(pong);
                } else {
                    sendsDone++;
                }
            }
            n = clientCq.poll(wc);
            for (int k = 0; k < n; k++) {
                assertEquals(WcStatus.SUCCESS, wc[k].status());
                if (wc[k].opcode() == WcOpcode.RECV) {
                    clientGotPong = true;
                } else {
                    sendsDone++;
                }
            }
        }
    }

    static WorkCompletion awaitOne(CompletionQueue cq) throws InterruptedException {
        WorkCompletion[] wc = {new WorkCompletion()};
        int n = cq.await(wc, 5, TimeUnit.SECONDS);
        assertTrue(n == 1, "no completion within 5 s");
        return wc[0];
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        listener.close();
        clientDevice.close();
        serverDevice.close();
        arena.close();
    }
}
