package io.nvmf4j.target.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.sgl.TransportSglDescriptor;
import io.nvmf4j.protocol.tcp.DataPdu;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.protocol.tcp.PduType;
import io.nvmf4j.target.rdma.RejectReason;
import io.nvmf4j.target.rdma.TransportObserver;
import io.nvmf4j.testsupport.Await;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One connection may hold at most its share of its poll group's data buffers ({@link TcpBufferQuota}: a quarter of
 * the pool, at least one largest buffer; here 1 MiB of the fixture's 4 MiB). Host A asks for far more than that and
 * never lets its transfers finish; host B, on the same poll group, goes on writing and reading 1 MiB at a time, and
 * A loses its connection after the command timeout, as the RDMA transport's {@code HostilePeerTest} and
 * {@code TransmitStallAttackTest} check for RDMA queues.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpBufferShareTest {

    private static final int MIB = 1 << 20;
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(3);

    private final Map<RejectReason, AtomicInteger> rejected = new ConcurrentHashMap<>();
    private final TransportObserver counting = new TransportObserver() {
        @Override
        public void peerRejected(RejectReason reason) {
            rejected.computeIfAbsent(reason, r -> new AtomicInteger()).incrementAndGet();
        }
    };

    private int rejected(RejectReason reason) {
        AtomicInteger n = rejected.get(reason);
        return n == null ? 0 : n.get();
    }

    private TcpTargetFixture fixture() throws IOException {
        return new TcpTargetFixture(TcpTargetFixture.options().commandTimeout(COMMAND_TIMEOUT).build(), counting);
    }

    /** A second I/O queue (QID 2) of the controller the admin host made, for host A. */
    private static RawTcpHost secondQueue(TcpTargetFixture f) throws IOException {
        int cntlid = f.subsystem.controllers().iterator().next().id();
        RawTcpHost h = RawTcpHost.initialized(f.address, false, false);
        assertEquals(0, h.connect(2, 31, cntlid, TcpTargetFixture.SUBNQN, TcpTargetFixture.HOST).status());
        return h;
    }

    /** {@code opcode} (01h write, 02h read) of 1 MiB at LBA 0 of namespace 1, its data moved by R2T or C2HData. */
    private static byte[] oneMib(RawTcpHost h, int opcode) {
        SubmissionQueueEntry sqe = h.readWrite(opcode, 1, 0, MIB / TcpTargetFixture.BLOCK);
        new TransportSglDescriptor(0, MIB).encode(sqe.dptr());
        return h.capsule(sqe, null);
    }

    /** Host B writes and reads back 1 MiB, within half the command timeout (A's share is no wait for it). */
    private static void hostBWritesAndReads(RawTcpHost b, int seed) throws IOException {
        long begin = System.nanoTime();
        byte[] data = TcpTransportTest.pattern(MIB, seed);
        assertEquals(0, b.write(1, 0, TcpTargetFixture.BLOCK, data, false).status());
        assertArrayEquals(data, b.read(1, 0, MIB / TcpTargetFixture.BLOCK, TcpTargetFixture.BLOCK).data());
        long took = System.nanoTime() - begin;
        assertTrue(took < COMMAND_TIMEOUT.toNanos() / 2, "host B waited " + took / 1_000_000 + " ms");
    }

    @Test
    void writesWhoseDataNeverComesHoldOnlyTheQueuesShareAndEndTheConnection() throws Exception {
        try (TcpTargetFixture f = fixture();
             var _ = f.adminHost(false, false);
             RawTcpHost b = f.ioHost(false, false);
             RawTcpHost a = secondQueue(f)) {
            for (int i = 0; i < 4; i++) {
                a.send(oneMib(a, 0x01));
            }
            MemorySegment r2t = a.readPdu(true);
            assertEquals(PduType.R2T.code(), PduHeader.type(r2t));
            assertEquals(MIB, DataPdu.dataLength(r2t));
            // the other three wait on A's share: no R2T for them while the first holds 1 MiB
            a.socket.setSoTimeout(500);
            assertThrows(SocketTimeoutException.class, () -> a.readPdu(true), "a second R2T");
            a.socket.setSoTimeout(RawTcpHost.TIMEOUT_MILLIS);

            hostBWritesAndReads(b, 21);

            // no H2CData: the command timeout ends A's connection, and only A's
            assertTrue(a.closedByTarget(), "A closed");
            assertEquals(1, rejected(RejectReason.READ_TIMEOUT), "one connection ended for its unanswered R2T");
            Await.until(() -> f.transport.queueCount() == 2, Duration.ofSeconds(5), "A's queue gone");
            hostBWritesAndReads(b, 22);
        }
    }

    /**
     * A peer that takes its reads' data a crack at a time (4 KiB every 50 ms) makes progress, so the transmit time
     * bound never ends it, even with a command timeout of a minute; holding more than half its share in data queued
     * over a second ago does (the RDMA transport's memory bound), and host B is served meanwhile.
     */
    @Test
    void readsTakenOffTheSocketACrackAtATimeEndTheConnectionByTheMemoryBound() throws Exception {
        try (TcpTargetFixture f = new TcpTargetFixture(TcpTargetFixture.options()
                     .commandTimeout(Duration.ofSeconds(60)).build(), counting);
             var _ = f.adminHost(false, false);
             RawTcpHost b = f.ioHost(false, false);
             RawTcpHost a = secondQueue(f)) {
            a.socket.setReceiveBufferSize(4096);
            for (int i = 0; i < 8; i++) {
                a.send(oneMib(a, 0x02));
            }
            Thread slowReader = Thread.ofPlatform().daemon().start(() -> {
                byte[] crack = new byte[4096];
                try {
                    var in = a.socket.getInputStream();
                    while (in.read(crack) >= 0) {
                        Thread.sleep(50); // the attacker's pace, not a wait for an event
                    }
                } catch (IOException | InterruptedException e) {
                    // closed (by the target, or by the test at its end)
                }
            });
            try {
                hostBWritesAndReads(b, 25);
                Await.until(() -> rejected(RejectReason.TRANSMIT_STALLED) == 1, Duration.ofSeconds(10),
                        "A ended for holding its share in data it takes too slowly");
                Await.until(() -> f.transport.queueCount() == 2, Duration.ofSeconds(5), "A's queue gone");
                hostBWritesAndReads(b, 26);
            } finally {
                slowReader.interrupt();
            }
        }
    }

    @Test
    void readsNeverTakenOffTheSocketHoldOnlyTheQueuesShareAndEndTheConnection() throws Exception {
        try (TcpTargetFixture f = fixture();
             var _ = f.adminHost(false, false);
             RawTcpHost b = f.ioHost(false, false);
             RawTcpHost a = secondQueue(f)) {
            a.socket.setReceiveBufferSize(4096);
            // 32 reads of 1 MiB and not a byte read back: far more than the socket buffers and the pool hold
            for (int i = 0; i < 32; i++) {
                a.send(oneMib(a, 0x02));
            }
            Thread.sleep(500); // A's reads are queued and its socket is full

            hostBWritesAndReads(b, 23);

            Await.until(() -> rejected(RejectReason.TRANSMIT_STALLED) == 1, COMMAND_TIMEOUT.multipliedBy(3),
                    "A ended for taking nothing sent");
            Await.until(() -> f.transport.queueCount() == 2, Duration.ofSeconds(5), "A's queue gone");
            hostBWritesAndReads(b, 24);
        }
    }
}
