package io.nvmf4j.target.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.target.Request;
import io.nvmf4j.target.backend.BackendSettings;
import io.nvmf4j.target.backend.StallingBackend;
import io.nvmf4j.testsupport.Await;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A request that waits for a data buffer proceeds when another request gives one back, and waiting requests proceed
 * in the order they arrived: whether they waited on their queue's share of the pool ({@link QueueBufferQuota}) or on
 * the pool itself ({@link PendingBuffers}). The buffer reaches them as an event the poll loop takes on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BufferWaitersTest {

    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    /** Counts the reads of the RAM namespace (nsid 1) that reached the transport. */
    private static final class ReadsStarted implements TransportObserver {
        final AtomicInteger reads = new AtomicInteger();

        @Override
        public void commandStarted(Request request) {
            if (request.namespace() != null && request.namespace().nsid() == 1 && request.sqe().opcode() == 0x02) {
                reads.incrementAndGet();
            }
        }
    }

    private static RdmaTransportOptions options(long poolBytes, long queueBytes) {
        return RdmaTransportOptions.builder().provider("softiwarp").pollGroups(1)
                .spinBudget(Duration.ofNanos(20_000)).completionQueueEntries(4096).bufferPoolBytes(poolBytes)
                .queueBufferBytes(queueBytes).readTimeout(Duration.ofSeconds(60)).build();
    }

    @Test
    void readsWaitingOnTheirQueuesShareProceedInArrivalOrderWhenTheHolderFinishes() throws Exception {
        ReadsStarted observer = new ReadsStarted();
        StallingBackend stalling = new StallingBackend(MIB, Duration.ofSeconds(30));
        // the queue may hold one 1 MiB buffer of the 4 MiB pool
        try (RdmaTargetFixture fixture = new RdmaTargetFixture(dir, 8, observer, options(4L * MIB, MIB),
                BackendSettings.DEFAULT, stalling);
             AutoCloseable _ = stalling::release; // before the target shuts down, whatever happens
             ScriptedRdmaHost _ = RdmaHosts.adminEnabled(fixture)) {
            int cntlid = fixture.subsystem.controllers().iterator().next().id();
            try (ScriptedRdmaHost io = RdmaHosts.ioQueue(fixture, cntlid, 1)) {
                byte[] pattern = writePattern(io);
                // the holder: a 1 MiB read its backend does not answer yet
                int holder = sendRead(io, 3, 0);
                await(() -> stalling.started.get() == 1, "the holder's read reaches its backend");
                int first = sendRead(io, 1, MIB);
                await(() -> observer.reads.get() == 1, "the first waiting read reaches the target");
                int second = sendRead(io, 1, 2L * MIB);
                await(() -> observer.reads.get() == 2, "the second waiting read reaches the target");
                assertEquals(MIB, fixture.transport.pollGroupStats().get(0).bufferBytesUsed(),
                        "only the holder has a buffer: the others wait on the queue's share");

                stalling.release();
                assertEquals(List.of(holder, first, second), List.of(cidOf(io), cidOf(io), cidOf(io)),
                        "responses in arrival order");
                assertArrayEquals(pattern, io.data.asSlice(MIB, MIB).toArray(ValueLayout.JAVA_BYTE), "first read");
                assertArrayEquals(pattern, io.data.asSlice(2L * MIB, MIB).toArray(ValueLayout.JAVA_BYTE),
                        "second read");
            }
        } finally {
            stalling.close();
        }
    }

    @Test
    void readsWaitingOnThePoolProceedInArrivalOrderWhenABufferComesBack() throws Exception {
        ReadsStarted observer = new ReadsStarted();
        StallingBackend stalling = new StallingBackend(MIB, Duration.ofSeconds(30));
        // a pool of two 1 MiB buffers, each queue allowed the whole pool
        try (RdmaTargetFixture fixture = new RdmaTargetFixture(dir, 8, observer, options(2L * MIB, 4L * MIB),
                BackendSettings.DEFAULT, stalling);
             AutoCloseable _ = stalling::release;
             ScriptedRdmaHost _ = RdmaHosts.adminEnabled(fixture)) {
            int cntlid = fixture.subsystem.controllers().iterator().next().id();
            try (ScriptedRdmaHost io = RdmaHosts.ioQueue(fixture, cntlid, 1);
                 ScriptedRdmaHost stalled = RdmaHosts.ioQueue(fixture, cntlid, 2);
                 FreezingTcpProxy relay = new FreezingTcpProxy(fixture.address);
                 ScriptedRdmaHost frozen = ScriptedRdmaHost.connect(relay.address(), 3, 32)) {
                byte[] pattern = writePattern(io);
                // one buffer held by a read its backend does not answer, the other by a write whose RDMA Read
                // never reaches its host
                int _ = sendRead(stalled, 3, 0);
                await(() -> stalling.started.get() == 1, "the stalled read reaches its backend");
                assertEquals(0, frozen.connectCommand(3, 31, cntlid, RdmaTargetFixture.SUBNQN,
                        RdmaTargetFixture.HOST).status());
                SubmissionQueueEntry w = frozen.readWrite(0x01, 1, 0, MIB / 512);
                frozen.keyed(w, 0, MIB, false);
                relay.armFreeze();
                frozen.send(64);
                await(() -> fixture.transport.bufferBytesFree() == 0, "the pool held");

                int first = sendRead(io, 1, MIB);
                await(() -> observer.reads.get() == 1, "the first waiting read reaches the target");
                int second = sendRead(io, 1, 2L * MIB);
                await(() -> observer.reads.get() == 2, "the second waiting read reaches the target");
                assertEquals(0, fixture.transport.bufferBytesFree(), "both reads wait: the pool is still held");

                relay.cut(); // the frozen queue ends and its buffer comes back: one buffer for two waiting reads
                assertEquals(List.of(first, second), List.of(cidOf(io), cidOf(io)), "responses in arrival order");
                assertArrayEquals(pattern, io.data.asSlice(MIB, MIB).toArray(ValueLayout.JAVA_BYTE), "first read");
                assertArrayEquals(pattern, io.data.asSlice(2L * MIB, MIB).toArray(ValueLayout.JAVA_BYTE),
                        "second read");
            }
        } finally {
            stalling.close();
        }
    }

    /** Writes 1 MiB of a pattern to the RAM namespace (nsid 1) at LBA 0. */
    private static byte[] writePattern(ScriptedRdmaHost io) throws Exception {
        byte[] bytes = new byte[MIB];
        new Random(31).nextBytes(bytes);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, io.data, 0, MIB);
        SubmissionQueueEntry w = io.readWrite(0x01, 1, 0, MIB / 512);
        io.keyed(w, 0, MIB, false);
        ScriptedRdmaHost.Response r = io.execute();
        assertEquals(0, r.status(), () -> "Write: " + Status.fromField(r.status()));
        return bytes;
    }

    /** Sends a 1 MiB read of {@code nsid} at LBA 0 into host memory at {@code offset}; returns its CID. */
    private static int sendRead(ScriptedRdmaHost io, long nsid, long offset) throws Exception {
        SubmissionQueueEntry r = io.readWrite(0x02, nsid, 0, MIB / 512);
        io.keyed(r, offset, MIB, false);
        io.send(64);
        return r.cid();
    }

    private static int cidOf(ScriptedRdmaHost io) throws Exception {
        ScriptedRdmaHost.Response r = io.awaitResponse();
        assertEquals(0, r.status(), () -> "response " + r.cqe().cid() + ": " + Status.fromField(r.status()));
        return r.cqe().cid();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        Await.until(condition, Duration.ofSeconds(10), what);
    }
}
