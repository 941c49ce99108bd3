package io.nvmf4j.verbs.ibverbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.QueuePairState;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Both ends of one connection on a real device (rxe, siw or hardware), through the whole provider: rdma_cm
 * connect/accept with private data both ways, receives pre-posted in the setup hook, Send, RDMA Write chained
 * before a Send, RDMA Read, Send with Invalidate, and a disconnect that flushes the peer's receives.
 *
 * <p>Runs only where {@code nvmf4j.ibverbs.testDevices} lists devices with an IP address of their netdev, as
 * {@code device@ip[,device@ip...]} (for the lab guest: {@code siw0@10.0.2.15,rxe0@10.0.3.15}, siw0 on eth0 and
 * rxe0 on eth1). Loopback addresses do not reach siw (seen in interop/), hence the property.
 */
@EnabledIfSystemProperty(named = "nvmf4j.ibverbs.testDevices", matches = ".+")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IbverbsDeviceRoundTripTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int SIZE = 64 * 1024;

    /** The {@code device@ip} pairs of {@code nvmf4j.ibverbs.testDevices}. */
    static Stream<Arguments> devices() {
        return Arrays.stream(System.getProperty("nvmf4j.ibverbs.testDevices", "").split(","))
                .filter(s -> !s.isBlank())
                .map(s -> Arguments.of(s.substring(0, s.indexOf('@')), s.substring(s.indexOf('@') + 1)));
    }

    @ParameterizedTest(name = "{0} at {1}")
    @MethodSource("devices")
    void sendWriteReadAndInvalidateMoveTheBytesAndDisconnectFlushesThePeer(String deviceName, String address)
            throws Exception {
        InetAddress ip = InetAddress.getByName(address);
        try (Arena arena = Arena.ofShared();
                RdmaDevice device = new IbverbsProvider().openDevice(deviceName)) {
            System.out.println("device " + device.name() + ": " + device.attributes());
            ProtectionDomain pd = device.allocatePd();
            CompletionQueue clientCq = device.createCompletionQueue(256);
            CompletionQueue serverCq = device.createCompletionQueue(256);
            EnumSet<AccessFlag> all = EnumSet.allOf(AccessFlag.class);
            MemoryRegion clientBuffer = pd.register(arena.allocate(SIZE, 4096), all);
            MemoryRegion clientRecv = pd.register(arena.allocate(SIZE, 4096), all);
            MemoryRegion serverBuffer = pd.register(arena.allocate(SIZE, 4096), all);
            MemoryRegion serverRecv = pd.register(arena.allocate(SIZE, 4096), all);
            fill(clientBuffer.segment(), 1);
            fill(serverBuffer.segment(), 2);

            RdmaListener listener = device.connectionManager().listen(new InetSocketAddress(ip, 0), 8);
            assertTrue(listener.localAddress().getPort() > 0, listener.localAddress()::toString);
            byte[] hello = "nvmf4j-request".getBytes(StandardCharsets.US_ASCII);
            byte[] welcome = "nvmf4j-accept".getBytes(StandardCharsets.US_ASCII);
            QueuePairAttributes attributes = QueuePairAttributes.defaults().withSge(1, 1);
            CompletableFuture<RdmaConnection> connecting = CompletableFuture.supplyAsync(() -> {
                try {
                    return device.connectionManager().connect(listener.localAddress(), new ConnectParams(pd,
                            clientCq, clientCq, attributes, hello,
                            qp -> qp.postReceive(new ReceiveWorkRequest().wrId(100).local(clientRecv, 0, SIZE))),
                            WAIT);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            step(device, "listening on " + listener.localAddress());
            ConnectRequest request = listener.accept(WAIT);
            assertNotNull(request, "no connect request");
            assertArrayEquals(hello, java.util.Arrays.copyOf(request.privateData(), hello.length));
            RdmaConnection server = request.accept(new AcceptParams(pd, serverCq, serverCq, attributes, welcome,
                    qp -> {
                        for (int i = 0; i < 4; i++) {
                            qp.postReceive(new ReceiveWorkRequest().wrId(200 + i).local(serverRecv, i * 4096L, 4096));
                        }
                    }));
            RdmaConnection client = connecting.get(WAIT.toSeconds() + 5, TimeUnit.SECONDS);
            assertArrayEquals(welcome, java.util.Arrays.copyOf(client.peerPrivateData(), welcome.length));
            assertTrue(client.isConnected() && server.isConnected());
            assertEquals(QueuePairState.RTS, client.queuePair().state());
            System.out.println("connected " + client + " <-> " + server + ", client QP "
                    + client.queuePair().attributes() + ", server QP " + server.queuePair().attributes());

            WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};

            step(device, "connected");
            // Send: client -> server
            client.queuePair().postSend(new SendWorkRequest().wrId(1).opcode(SendOpcode.SEND)
                    .local(clientBuffer, 0, 4096));
            expect(clientCq, wcs, 1, WcOpcode.SEND, WcStatus.SUCCESS);
            WorkCompletion received = expect(serverCq, wcs, 200, WcOpcode.RECV, WcStatus.SUCCESS);
            assertEquals(4096, received.byteLength());
            assertEquals(server.queuePair().number(), received.queuePairNumber());
            assertArrayEquals(bytes(clientBuffer.segment(), 0, 4096), bytes(serverRecv.segment(), 0, 4096));

            step(device, "send ok");
            // RDMA Write of the whole server buffer into the client buffer, chained before a Send
            SendWorkRequest send = new SendWorkRequest().wrId(3).opcode(SendOpcode.SEND).local(serverBuffer, 0, 64);
            server.queuePair().postSend(new SendWorkRequest().wrId(2).opcode(SendOpcode.RDMA_WRITE).signaled(false)
                    .local(serverBuffer, 0, SIZE).remote(clientBuffer.address(), clientBuffer.rkey()).next(send));
            expect(serverCq, wcs, 3, WcOpcode.SEND, WcStatus.SUCCESS);
            expect(clientCq, wcs, 100, WcOpcode.RECV, WcStatus.SUCCESS);
            assertArrayEquals(bytes(serverBuffer.segment(), 0, SIZE), bytes(clientBuffer.segment(), 0, SIZE));

            step(device, "write+send ok");
            // RDMA Read: the client fetches the server's receive buffer (holding the first Send) into its own
            client.queuePair().postSend(new SendWorkRequest().wrId(4).opcode(SendOpcode.RDMA_READ)
                    .local(clientRecv, 0, 4096).remote(serverRecv.address(), serverRecv.rkey()));
            WorkCompletion read = expect(clientCq, wcs, 4, WcOpcode.RDMA_READ, WcStatus.SUCCESS);
            assertEquals(4096, read.byteLength());
            assertArrayEquals(bytes(serverRecv.segment(), 0, 4096), bytes(clientRecv.segment(), 0, 4096));

            step(device, "read ok");
            // Send with Invalidate of the server buffer's rkey, as an NVMe-oF target answers a keyed SGL.
            // nvmf4j.ibverbs.skipInvalidate=true leaves it out, to see the rest on devices where it fails (lab
            // guest, rdma-core 44: rxe refuses to invalidate an ibv_reg_mr key, siw does not report IBV_WC_WITH_INV)
            if (!Boolean.getBoolean("nvmf4j.ibverbs.skipInvalidate")) {
                client.queuePair().postSend(new SendWorkRequest().wrId(5).opcode(SendOpcode.SEND_WITH_INVALIDATE)
                        .invalidateRkey(serverBuffer.rkey()).local(clientBuffer, 0, 16));
                expect(clientCq, wcs, 5, WcOpcode.SEND, WcStatus.SUCCESS);
                WorkCompletion invalidated = expect(serverCq, wcs, 201, WcOpcode.RECV, WcStatus.SUCCESS);
                System.out.println("send with invalidate: " + invalidated);
                assertTrue(invalidated.withInvalidate(), invalidated::toString);
                assertEquals(serverBuffer.rkey(), invalidated.invalidatedRkey());
                assertFalse(serverBuffer.isValid());
                step(device, "send with invalidate ok");
            } else {
                step(device, "send with invalidate SKIPPED (nvmf4j.ibverbs.skipInvalidate)");
            }
            // the client leaves: the server sees it, and its two remaining receives are flushed
            CompletableFuture<DisconnectEvent> serverEnd = new CompletableFuture<>();
            server.onDisconnect(serverEnd::complete);
            client.disconnect();
            assertEquals(DisconnectEvent.Cause.PEER_DISCONNECT,
                    serverEnd.get(WAIT.toSeconds(), TimeUnit.SECONDS).cause());
            assertFalse(server.isConnected());
            for (int i = 0; i < 2; i++) {
                WorkCompletion flushed = await(serverCq, wcs);
                assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status(), flushed::toString);
            }
            client.close();
            server.close();
            listener.close();
            step(device, "disconnect and flush ok");
        }
    }

    private static void step(RdmaDevice device, String what) {
        System.out.println(device.name() + ": " + what);
    }

    private static WorkCompletion expect(CompletionQueue cq, WorkCompletion[] wcs, long wrId, WcOpcode opcode,
            WcStatus status) throws InterruptedException {
        WorkCompletion wc = await(cq, wcs);
        assertEquals(status, wc.status(), wc::toString);
        assertEquals(wrId, wc.wrId(), wc::toString);
        assertEquals(opcode, wc.opcode(), wc::toString);
        return wc;
    }

    private static WorkCompletion await(CompletionQueue cq, WorkCompletion[] wcs) throws InterruptedException {
        WorkCompletion[] one = {wcs[0]}; // one at a time: the assertions read them in CQ order
        int n = cq.await(one, WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(1, n, "completions within " + WAIT);
        return new WorkCompletion().copyFrom(one[0]);
    }

    private static void fill(MemorySegment segment, int seed) {
        for (long i = 0; i < segment.byteSize(); i++) {
            segment.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
    }

    private static byte[] bytes(MemorySegment segment, long offset, int length) {
        return segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }
}
