package io.nvmf4j.target.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.target.Request;
import io.nvmf4j.target.metrics.TargetMetrics;
import io.nvmf4j.testsupport.Await;
import io.nvmf4j.verbs.ConnectionRejectedException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Peers that misbehave on purpose against the RDMA target (issue 13): QIDs that disagree, oversized SGLs, Read
 * Requests never answered, connections that never send Connect, a failure inside the poll loop. Each test ends
 * with a legitimate host doing verified I/O on the same target.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HostilePeerTest {

    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    RdmaTargetFixture fixture;
    final List<AutoCloseable> closeables = new ArrayList<>();

    /** One poll group with small buffers and completion queue; each test sets the limit it attacks. */
    private static RdmaTransportOptions.Builder options() {
        return RdmaTransportOptions.builder().provider("softiwarp").pollGroups(1).spinBudget(Duration.ofNanos(20_000))
                .bufferPoolBytes(4L << 20).completionQueueEntries(4096);
    }

    private void start(RdmaTransportOptions options) throws Exception {
        start(options, TransportObserver.NONE);
    }

    private void start(RdmaTransportOptions options, TransportObserver observer) throws Exception {
        fixture = new RdmaTargetFixture(dir, 8, observer, options);
    }

    private <T extends AutoCloseable> T keep(T c) {
        closeables.add(c);
        return c;
    }

    @AfterEach
    void stop() {
        for (AutoCloseable c : closeables.reversed()) {
            try {
                c.close();
            } catch (Exception ignored) {
                // best effort
            }
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    private static double rejected(SimpleMeterRegistry registry, RejectReason reason) {
        return registry.get("nvmf4j.rejected").tag("reason", reason.label()).counter().count();
    }

    private static Status status(ScriptedRdmaHost.Response r) {
        return Status.fromField(r.status());
    }

    private static void assertStatus(StatusCode expected, ScriptedRdmaHost.Response r) {
        Status s = status(r);
        assertTrue(s.is(expected), () -> "expected " + expected + " got " + s);
        assertTrue(s.dnr(), () -> "DNR of " + s);
    }

    private static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static void await(BooleanSupplier condition, Duration limit, String what) throws InterruptedException {
        Await.until(condition, limit, what);
    }

    /** A legitimate host: admin queue, enable, I/O queue 1. */
    private record Legit(ScriptedRdmaHost admin, ScriptedRdmaHost io, int cntlid) implements AutoCloseable {
        @Override
        public void close() {
            io.close();
            admin.close();
        }
    }

    private Legit legit(ScriptedRdmaHost.Response[] adminConnect) throws Exception {
        ScriptedRdmaHost admin = ScriptedRdmaHost.connect(fixture.address, 0, 32);
        ScriptedRdmaHost.Response r = admin.connectCommand(0, 31, 0xFFFF, RdmaTargetFixture.SUBNQN,
                RdmaTargetFixture.HOST);
        assertEquals(0, r.status(), () -> "admin Connect " + status(r));
        admin.enable();
        int cntlid = r.cqe().dw0() & 0xFFFF;
        ScriptedRdmaHost io = ScriptedRdmaHost.connect(fixture.address, 1, 32);
        ScriptedRdmaHost.Response ir = io.connectCommand(1, 31, cntlid, RdmaTargetFixture.SUBNQN,
                RdmaTargetFixture.HOST);
        assertEquals(0, ir.status(), () -> "I/O Connect " + status(ir));
        return new Legit(admin, io, cntlid);
    }

    private Legit legit() throws Exception {
        return legit(null);
    }

    /** Writes {@code length} bytes of a pattern to nsid 1 at LBA 0 and reads them back. */
    private static void verifiedIo(ScriptedRdmaHost io, int length, long seed) throws Exception {
        byte[] bytes = pattern(length, seed);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, io.data, 0, length);
        SubmissionQueueEntry w = io.readWrite(0x01, 1, 0, length / 512);
        io.keyed(w, 0, length, false);
        ScriptedRdmaHost.Response wr = io.execute();
        assertEquals(0, wr.status(), () -> "Write: " + status(wr));
        io.data.asSlice(2L * MIB, length).fill((byte) 0);
        SubmissionQueueEntry rd = io.readWrite(0x02, 1, 0, length / 512);
        io.keyed(rd, 2L * MIB, length, false);
        ScriptedRdmaHost.Response rr = io.execute();
        assertEquals(0, rr.status(), () -> "Read: " + status(rr));
        assertArrayEquals(bytes, io.data.asSlice(2L * MIB, length).toArray(ValueLayout.JAVA_BYTE), "read back");
    }

    private static boolean containsRun(MemorySegment haystack, byte[] needle, int runLength) {
        byte[] h = haystack.toArray(ValueLayout.JAVA_BYTE);
        // from the middle: the start of a reused buffer is overwritten by whoever used a small part of it last
        byte[] run = java.util.Arrays.copyOfRange(needle, needle.length / 2, needle.length / 2 + runLength);
        outer:
        for (int i = 0; i + runLength <= h.length; i++) {
            for (int j = 0; j < runLength; j++) {
                if (h[i + j] != run[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    // ---- F2 ----

    /**
     * F2, the probe as filed: RDMA-CM private data says QID 1, the Connect on it says QID 0 (admin, to the
     * discovery subsystem that admits anyone), then enable and Get Features KATO with a 1 MiB keyed SGL, after
     * another host wrote known bytes through the pool. None of those bytes may come back.
     */
    @Test
    void cmQidOneWithAnAdminConnectCannotReadAnotherHostsBytesThroughGetFeatures() throws Exception {
        start(options().build());
        byte[] secret = pattern(MIB, 0x5EC12E7);
        try (Legit host = legit()) {
            MemorySegment.copy(MemorySegment.ofArray(secret), 0, host.io.data, 0, MIB);
            SubmissionQueueEntry w = host.io.readWrite(0x01, 1, 0, MIB / 512);
            host.io.keyed(w, 0, MIB, false);
            assertEquals(0, host.io.execute().status(), "the victim's 1 MiB write");
        }
        try (ScriptedRdmaHost attacker = ScriptedRdmaHost.connect(fixture.address, 1, 32)) {
            attacker.data.fill((byte) 0xEE);
            attacker.prepareConnect(0, 31, 0xFFFF, Nqn.DISCOVERY_VALUE, RdmaTargetFixture.OTHER_HOST,
                    ScriptedRdmaHost.DEFAULT_HOST_ID, 1024);
            ScriptedRdmaHost.Response connect = attacker.execute();
            // the data area was overwritten by the Connect data: refill what Get Features will target
            attacker.data.asSlice(MIB, MIB).fill((byte) 0xEE);
            try {
                attacker.enable();
            } catch (IllegalStateException refused) {
                // expected once the Connect is refused: the queue has no controller to enable
            }
            ScriptedRdmaHost.Response kato = attacker.getFeatures(0x0F, MIB, MIB);
            assertFalse(containsRun(attacker.data.asSlice(MIB, MIB), secret, 64),
                    "another host's bytes came back (Connect " + status(connect) + ", Get Features " + status(kato)
                            + ")");
            assertStatus(StatusCode.CONNECT_INVALID_PARAM, connect);
            assertEquals(42, connect.cqe().dw0(), "IATTR 0 (SQE), IPO 42: the QID field");
        }
    }

    /**
     * F2 (b): exact lengths. Get Features KATO has no data (nvmet_feat_data_len() 0): a 1 MiB SGL is Data SGL
     * Length Invalid (nvmet_execute_disc_get_features(): nvmet_check_transfer_len(req, 0)), and the target
     * RDMA-Writes nothing: not stale pool bytes, not even zeroes.
     */
    @Test
    void getFeaturesWithoutDataWritesNothingIntoAHugeHostBuffer() throws Exception {
        start(options().build());
        try (ScriptedRdmaHost admin = ScriptedRdmaHost.connect(fixture.address, 0, 32)) {
            assertEquals(0, admin.connectCommand(0, 31, 0xFFFF, Nqn.DISCOVERY_VALUE, RdmaTargetFixture.OTHER_HOST)
                    .status());
            admin.enable();
            admin.data.asSlice(MIB, MIB).fill((byte) 0xEE);
            ScriptedRdmaHost.Response kato = admin.getFeatures(0x0F, MIB, MIB);
            assertStatus(StatusCode.SGL_INVALID_DATA, kato);
            MemorySegment d = admin.data.asSlice(MIB, MIB);
            for (long i = 0; i < MIB; i += 8) {
                if (d.get(ValueLayout.JAVA_LONG_UNALIGNED, i) != 0xEEEE_EEEE_EEEE_EEEEL) {
                    fail("the target wrote into the host's buffer at offset " + i);
                }
            }
        }
    }

    // ---- F3 ----

    /**
     * F3: 32 Connects, each with a 1 MiB keyed SGL, whose Read Requests never get an answer (a relay drops the
     * attacker's bytes once the target speaks). The Connect data length is checked before any buffer is taken, so
     * the pool stays free; attackers with a well-formed 1024-byte SGL hold one small buffer each until the Read
     * timeout ends their connection.
     */
    @Test
    void connectsWithHugeSglsAndUnansweredReadsCannotStarveARealHost() throws Exception {
        // a completion queue big enough for 32 full admin queues: this is about the pool, not about F4
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        start(options().completionQueueEntries(16384).readTimeout(Duration.ofSeconds(1))
                .connectTimeout(Duration.ofSeconds(4)).build(), new TargetMetrics(registry));
        long poolFree = fixture.transport.bufferBytesFree();
        for (int i = 0; i < 32; i++) {
            FreezingTcpProxy relay = keep(new FreezingTcpProxy(fixture.address));
            ScriptedRdmaHost a = keep(ScriptedRdmaHost.connect(relay.address(), 0, 32));
            a.prepareConnect(0, 31, 0xFFFF, RdmaTargetFixture.SUBNQN, RdmaTargetFixture.HOST,
                    ScriptedRdmaHost.DEFAULT_HOST_ID, i < 28 ? MIB : 1024);
            relay.armFreeze();
            a.send(64);
        }
        // every attacker's Connect has been seen once the 28 with a 1 MiB SGL are refused
        await(() -> rejected(registry, RejectReason.CONNECT_REFUSED) == 28, Duration.ofSeconds(10),
                "the 28 Connects with a 1 MiB SGL refused");
        long held = poolFree - fixture.transport.bufferBytesFree();
        assertTrue(held <= 4 * 4096, "attackers hold " + held + " bytes of the pool");
        try (Legit host = legit()) {
            verifiedIo(host.io, 64 * 1024, 3);
            await(() -> rejected(registry, RejectReason.READ_TIMEOUT) == 4, Duration.ofSeconds(10),
                    "the 4 connections whose RDMA Read was never answered ended");
            await(() -> fixture.transport.queueCount() == 2, Duration.ofSeconds(15),
                    "every attacker connection gone (Read timeout, then connect timeout)");
            verifiedIo(host.io, 64 * 1024, 4);
        }
        assertEquals(28.0, rejected(registry, RejectReason.CONNECT_REFUSED), "28 Connects with a 1 MiB SGL refused");
        // one count per connection, under its first reason: the 28 are not counted again when they time out
        assertEquals(0.0, rejected(registry, RejectReason.CONNECT_TIMEOUT));
        // the host hears of its last command before the target has reaped that command's own Send completion (and
        // before the closed host's queues are torn down): the buffer comes back a moment later, on the poll thread
        await(() -> fixture.transport.bufferBytesFree() == poolFree, Duration.ofSeconds(10),
                "the pool whole again (" + poolFree + " bytes free)");
    }

    /**
     * F3: one queue may hold at most its share of the pool (by default a quarter). A connected queue whose Read
     * Requests never reach its host posts four 1 MiB writes: it holds 1 MiB, the other three wait on the queue's
     * own limit, and another host's 1 MiB I/O still finds buffers in the 4 MiB pool.
     */
    @Test
    void oneQueueCannotHoldMoreThanItsShareOfThePool() throws Exception {
        start(options().readTimeout(Duration.ofSeconds(30)).build());
        long poolFree = fixture.transport.bufferBytesFree();
        try (Legit host = legit()) {
            FreezingTcpProxy relay = keep(new FreezingTcpProxy(fixture.address));
            ScriptedRdmaHost greedy = keep(ScriptedRdmaHost.connect(relay.address(), 2, 32));
            assertEquals(0, greedy.connectCommand(2, 31, host.cntlid(), RdmaTargetFixture.SUBNQN,
                    RdmaTargetFixture.HOST).status());
            relay.freezeTargetToHost();
            SubmissionQueueEntry w = greedy.readWrite(0x01, 1, 0, MIB / 512);
            greedy.keyed(w, 0, MIB, false);
            for (int i = 0; i < 4; i++) {
                greedy.send(64);
            }
            await(() -> poolFree - fixture.transport.bufferBytesFree() == MIB, Duration.ofSeconds(10),
                    "the greedy queue's first write holds 1 MiB of the pool");
            verifiedIo(host.io, MIB, 10);
            // the other host's buffers go back when its response Sends complete, the greedy queue's 1 MiB stays
            await(() -> poolFree - fixture.transport.bufferBytesFree() == MIB, Duration.ofSeconds(10),
                    "only the greedy queue's 1 MiB held after the other host's I/O");
        }
    }

    // ---- F4 ----

    /**
     * F4: RDMA connections that never send Connect. Each used to reserve completion-queue room for its full
     * depth at accept; 6 of 128 entries filled a 4096-entry completion queue and every later host got NO_RSC.
     * Now an unconnected queue holds the room of one capsule, and is closed after the connect timeout.
     */
    @Test
    void connectionsThatNeverSendConnectCannotLockOutARealHostAndAreClosed() throws Exception {
        start(options().connectTimeout(Duration.ofSeconds(2)).build());
        int refused = 0;
        for (int i = 0; i < 32; i++) {
            try {
                keep(ScriptedRdmaHost.connect(fixture.address, 1 + i, 128));
            } catch (ConnectionRejectedException e) {
                refused++;
            }
        }
        assertEquals(0, refused, "idle connections refused");
        try (Legit host = legit()) {
            verifiedIo(host.io, 4096, 5);
            await(() -> fixture.transport.queueCount() == 2, Duration.ofSeconds(10),
                    "connections without Connect closed after the connect timeout");
            verifiedIo(host.io, 4096, 6);
        }
    }

    /** F4: unconnected queues from one address are capped; the cap frees up as they time out. */
    @Test
    void unconnectedQueuesFromOneAddressAreCapped() throws Exception {
        start(options().connectTimeout(Duration.ofSeconds(1)).maxUnconnectedPerAddress(4).build());
        for (int i = 0; i < 4; i++) {
            keep(ScriptedRdmaHost.connect(fixture.address, 1, 32));
        }
        try {
            keep(ScriptedRdmaHost.connect(fixture.address, 1, 32));
            fail("a fifth unconnected queue from 127.0.0.1 was accepted");
        } catch (ConnectionRejectedException expected) {
            // NO_RSC
        }
        await(() -> fixture.transport.queueCount() == 0, Duration.ofSeconds(10), "idle queues timed out");
        try (Legit host = legit()) {
            verifiedIo(host.io, 4096, 7);
        }
    }

    // ---- F11 ----

    /**
     * F11 over RDMA: an I/O Connect naming the real host's NQN and controller ID but another Host Identifier is
     * refused (Connect Invalid Parameters, IATTR 1 / IPO 0); the real host's I/O queues still connect.
     */
    @Test
    void ioConnectWithAStolenNqnAndCntlidButAnotherHostIdentifierIsRefused() throws Exception {
        start(options().build());
        try (Legit host = legit();
             ScriptedRdmaHost intruder = ScriptedRdmaHost.connect(fixture.address, 2, 32)) {
            intruder.prepareConnect(2, 31, host.cntlid(), RdmaTargetFixture.SUBNQN, RdmaTargetFixture.HOST,
                    ScriptedRdmaHost.hostId(0x10), 1024);
            ScriptedRdmaHost.Response r = intruder.execute();
            assertStatus(StatusCode.CONNECT_INVALID_PARAM, r);
            assertEquals(1 << 16, r.cqe().dw0(), "IATTR 1 (Connect data), IPO 0 (HOSTID)");
            try (ScriptedRdmaHost io2 = ScriptedRdmaHost.connect(fixture.address, 2, 32)) {
                assertEquals(0, io2.connectCommand(2, 31, host.cntlid(), RdmaTargetFixture.SUBNQN,
                        RdmaTargetFixture.HOST).status(), "the real host's second I/O queue");
            }
            verifiedIo(host.io, 4096, 9);
        }
    }

    /** The reason label set is fixed and registered up front (a peer's input never becomes a label). */
    @Test
    void rejectedConnectionsAreCountedUnderABoundedSetOfReasons() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        start(options().build(), new TargetMetrics(registry));
        assertEquals(RejectReason.values().length, registry.find("nvmf4j.rejected").counters().size());
        try {
            ScriptedRdmaHost.connect(fixture.address, io.nvmf4j.protocol.rdma.RdmaCmRequest.of(
                    io.nvmf4j.protocol.QueueId.of(0), 64, 63).toBytes(), 64).close();
            fail("an admin queue of 64 entries was accepted");
        } catch (ConnectionRejectedException expected) {
            // INVALID_HSQSIZE
        }
        assertEquals(1.0, rejected(registry, RejectReason.CM_REQUEST));
        try (ScriptedRdmaHost stranger = ScriptedRdmaHost.connect(fixture.address, 0, 32)) {
            assertTrue(stranger.connectCommand(0, 31, 0xFFFF, RdmaTargetFixture.SUBNQN, "nqn.2014-08.org.example:x")
                    .status() != 0);
        }
        assertEquals(1.0, rejected(registry, RejectReason.CONNECT_REFUSED));
        assertEquals(RejectReason.values().length, registry.find("nvmf4j.rejected").counters().size());
    }

    // ---- F10 ----

    /**
     * F10: a failure while a freed buffer is handed to a waiting request (here: the metrics observer throws) used to
     * escape the poll loop and end the poll-group thread: every queue on it stalled. Now it ends that connection.
     */
    @Test
    void aFailureWhileServingBufferWaitersEndsOnlyThatConnection() throws Exception {
        CountDownLatch victimWaits = new CountDownLatch(1);
        CountDownLatch injected = new CountDownLatch(1);
        TransportObserver throwing = new TransportObserver() {
            @Override
            public void commandStarted(Request request) {
                if (request.namespace() != null && request.namespace().nsid() == 2) {
                    victimWaits.countDown(); // the read has arrived; its buffer comes later
                }
            }

            @Override
            public void commandFinished(Request request, long latencyNanos, boolean responded) {
                if (responded && request.namespace() != null && request.namespace().nsid() == 2) {
                    injected.countDown();
                    throw new IllegalStateException("injected observer failure");
                }
            }
        };
        // a 2 MiB pool of two 1 MiB buffers, each queue allowed the whole pool
        start(options().bufferPoolBytes(2L * MIB).queueBufferBytes(2L * MIB)
                .readTimeout(Duration.ofSeconds(60)).build(), throwing);
        try (Legit bystander = legit(); Legit victim = legit()) {
            // two queues of a third controller fill the pool with writes whose RDMA Reads are never answered
            ScriptedRdmaHost zAdmin = keep(ScriptedRdmaHost.connect(fixture.address, 0, 32));
            ScriptedRdmaHost.Response zc = zAdmin.connectCommand(0, 31, 0xFFFF, RdmaTargetFixture.SUBNQN,
                    RdmaTargetFixture.HOST);
            zAdmin.enable();
            int zCntlid = zc.cqe().dw0() & 0xFFFF;
            List<FreezingTcpProxy> relays = new ArrayList<>();
            for (int q = 1; q <= 2; q++) {
                FreezingTcpProxy relay = keep(new FreezingTcpProxy(fixture.address));
                relays.add(relay);
                ScriptedRdmaHost z = keep(ScriptedRdmaHost.connect(relay.address(), q, 32));
                assertEquals(0, z.connectCommand(q, 31, zCntlid, RdmaTargetFixture.SUBNQN, RdmaTargetFixture.HOST)
                        .status());
                SubmissionQueueEntry w = z.readWrite(0x01, 1, 0, MIB / 512);
                z.keyed(w, 0, MIB, false);
                relay.armFreeze();
                z.send(64);
            }
            await(() -> fixture.transport.bufferBytesFree() == 0, Duration.ofSeconds(5), "pool held");
            // the victim's 1 MiB read of nsid 2 waits for a buffer
            SubmissionQueueEntry r = victim.io.readWrite(0x02, 2, 0, MIB / 4096);
            victim.io.keyed(r, 0, MIB, false);
            victim.io.send(64);
            assertTrue(victimWaits.await(10, TimeUnit.SECONDS), "the victim's read reached the target");
            assertEquals(0, fixture.transport.bufferBytesFree(), "the read waits: the pool is still held");
            relays.get(0).cut(); // a buffer comes free: the waiting read gets it, and the observer throws
            assertTrue(injected.await(10, TimeUnit.SECONDS), "the waiting read got a buffer and completed");
            verifiedIo(bystander.io, 4096, 8);
        }
    }
}
