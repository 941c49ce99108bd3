package io.nvmf4j.target.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.target.backend.BackendIoMode;
import io.nvmf4j.target.backend.BackendSettings;
import io.nvmf4j.target.backend.StallingBackend;
import io.nvmf4j.testsupport.Await;
import io.nvmf4j.uring.IoUring;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A namespace whose backend stops answering (every call blocks, like an NFS file whose server went away) stalls
 * only its own commands: another queue on the same poll group keeps doing verified I/O to the file and RAM
 * namespaces meanwhile, no backend call is ever made on the poll thread, and a command the backend never answers
 * is answered Command Interrupted after the backend timeout, its buffer given back once the backend lets go. In
 * both backend I/O modes.
 */
class BackendStallTest {

    @TempDir
    Path dir;

    private static RdmaTransportOptions oneGroup() {
        return RdmaTransportOptions.builder().provider("softiwarp").pollGroups(1).spinBudget(Duration.ofNanos(20_000))
                .bufferPoolBytes(4L << 20).completionQueueEntries(4096).build();
    }

    private static void assumeMode(BackendIoMode mode) {
        if (mode == BackendIoMode.URING) {
            assumeTrue(IoUring.unavailableReason() == null, () -> "io_uring: " + IoUring.unavailableReason());
        }
    }

    @ParameterizedTest
    @EnumSource(value = BackendIoMode.class, names = {"URING", "THREADS"})
    void anotherQueueOnTheSamePollGroupDoesVerifiedIoWhileOneNamespaceStalls(BackendIoMode mode) throws Exception {
        assumeMode(mode);
        StallingBackend stalling = new StallingBackend(1 << 20, Duration.ofSeconds(30));
        BackendSettings settings = BackendSettings.DEFAULT.withMode(mode);
        try (RdmaTargetFixture fixture = new RdmaTargetFixture(dir, 8, TransportObserver.NONE, oneGroup(), settings,
                stalling);
             AutoCloseable _ = stalling::release; // before the target shuts down, whatever happens
             ScriptedRdmaHost _ = RdmaHosts.adminEnabled(fixture)) {
            int cntlid = fixture.subsystem.controllers().iterator().next().id();
            try (ScriptedRdmaHost stalled = RdmaHosts.ioQueue(fixture, cntlid, 1);
                 ScriptedRdmaHost other = RdmaHosts.ioQueue(fixture, cntlid, 2)) {
                SubmissionQueueEntry r = stalled.readWrite(0x02, 3, 0, 8);
                stalled.keyed(r, 0, 4096, false);
                stalled.send(64);
                await(() -> stalling.started.get() == 1, "the stalled read reaches its backend");

                for (int i = 0; i < 20; i++) {
                    long nsid = 1L + i % 2;
                    int blockSize = nsid == 1 ? 512 : 4096;
                    writeAndReadBack(other, nsid, blockSize, i);
                }
                assertEquals(0, stalling.finished.get(), "the stalled read is still stalled after 20 round trips");

                stalling.release();
                ScriptedRdmaHost.Response done = stalled.awaitResponse();
                assertEquals(0, done.status(), () -> "stalled read once released: " + Status.fromField(done.status()));
            }
            assertEquals(java.util.List.of(), stalling.callsOnPollThreads, "backend calls made on a poll thread");
        } finally {
            stalling.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = BackendIoMode.class, names = {"URING", "THREADS"})
    void aCommandTheBackendNeverAnswersIsAnsweredCommandInterruptedAfterTheTimeout(BackendIoMode mode)
            throws Exception {
        assumeMode(mode);
        StallingBackend stalling = new StallingBackend(1 << 20, Duration.ofSeconds(30));
        BackendSettings settings = BackendSettings.DEFAULT.withMode(mode).withTimeout(Duration.ofMillis(500));
        try (RdmaTargetFixture fixture = new RdmaTargetFixture(dir, 8, TransportObserver.NONE, oneGroup(), settings,
                stalling);
             AutoCloseable _ = stalling::release; // before the target shuts down, whatever happens
             ScriptedRdmaHost _ = RdmaHosts.adminEnabled(fixture)) {
            int cntlid = fixture.subsystem.controllers().iterator().next().id();
            try (ScriptedRdmaHost io = RdmaHosts.ioQueue(fixture, cntlid, 1)) {
                SubmissionQueueEntry r = io.readWrite(0x02, 3, 0, 8);
                io.keyed(r, 0, 4096, false);
                ScriptedRdmaHost.Response timedOut = io.execute();
                Status s = Status.fromField(timedOut.status());
                assertTrue(s.is(StatusCode.CMD_INTERRUPTED), () -> "expected Command Interrupted, got " + s);
                assertTrue(!s.dnr(), "retryable: no DNR");
                assertTrue(fixture.transport.pollGroupStats().get(0).bufferBytesUsed() > 0,
                        "the abandoned read still holds its buffer");

                writeAndReadBack(io, 1, 512, 7); // the queue goes on

                stalling.release();
                await(() -> stalling.finished.get() == 1, "the abandoned read ends once released");
                await(() -> fixture.transport.pollGroupStats().get(0).bufferBytesUsed() == 0,
                        "the abandoned read's buffer is given back when its backend lets go");
            }
        } finally {
            stalling.close();
        }
    }

    private static void writeAndReadBack(ScriptedRdmaHost io, long nsid, int blockSize, int seed) throws Exception {
        int blocks = 4;
        int length = blocks * blockSize;
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, io.data, 65536, length);
        SubmissionQueueEntry w = io.readWrite(0x01, nsid, 5 + seed, blocks);
        io.keyed(w, 65536, length, false);
        ScriptedRdmaHost.Response wr = io.execute();
        assertEquals(0, wr.status(), () -> "Write to " + nsid + ": " + Status.fromField(wr.status()));
        io.data.asSlice(1 << 20, length).fill((byte) 0);
        SubmissionQueueEntry r = io.readWrite(0x02, nsid, 5 + seed, blocks);
        io.keyed(r, 1 << 20, length, false);
        ScriptedRdmaHost.Response rd = io.execute();
        assertEquals(0, rd.status(), () -> "Read from " + nsid + ": " + Status.fromField(rd.status()));
        assertArrayEquals(bytes, io.data.asSlice(1 << 20, length).toArray(ValueLayout.JAVA_BYTE));
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        Await.until(condition, Duration.ofSeconds(10), what);
    }
}
