package io.nvmf4j.target.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.target.metrics.TargetMetrics;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The target's steady-state data path allocates nothing per command (issue 8: no allocation per I/O). A scripted
 * host drives thousands of 4 KiB commands at a real target over softiwarp on 127.0.0.1: keyed-SGL Writes (RDMA
 * Read of the host's data) and Reads (RDMA Write + Send), a Read answered with Send with Invalidate, in-capsule
 * Writes, and Flushes, on the RAM and the file namespace, with Micrometer metrics on. The bytes the poll-group
 * thread allocated over the measured window ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes},
 * read for the poll thread by id from the test thread) must stay under a small fixed bound, far below one object
 * per command. Once with metrics and a spin budget longer than a command's round trip (the poll thread never
 * blocks: a loaded target), once without metrics and no spin budget (the poll thread blocks in the completion
 * queue between commands and is woken for each: the idle-to-busy path).
 *
 * <p>Before the data path was made allocation-free this measured ~1.9 KB per command (23.4 MB over 12,080
 * commands): mostly the protocol's SQE/CQE accessors, which build a little-endian layout per field access, plus a
 * slice per data buffer, a command wrapper per Read/Write and a Status record per CQE read back.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DataPathAllocationTest {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    /** Iterations per window; the warm-up runs windows until one is (almost) allocation-free. */
    private static final int WINDOW = 100;
    private static final int MEASURED_WINDOWS = 4;
    private static final Duration WARMUP_LIMIT = Duration.ofSeconds(80);
    /** Commands per iteration: 2 keyed writes, 3 keyed reads, 1 in-capsule write (+ 2 flushes every 50th). */
    private static final int COMMANDS_PER_ITERATION = 6;
    /** A counter read and JIT noise; one 16-byte object per command would be ~190 KB over the window. */
    private static final long SLACK_BYTES = 4096;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "metrics {0}, spin budget {1} µs")
    @CsvSource({"true, 200000", "false, 0"})
    void readsWritesAndFlushesOnRamAndFileAllocateNothingPerCommandOnThePollThread(boolean withMetrics,
                                                                                  long spinMicros)
            throws Exception {
        THREADS.setThreadAllocatedMemoryEnabled(true);
        RdmaTransportOptions options = RdmaTransportOptions.builder().provider("softiwarp").pollGroups(1)
                .spinBudget(Duration.ofNanos(spinMicros * 1000)).bufferPoolBytes(4L << 20)
                .completionQueueEntries(4096).build();
        TransportObserver observer = withMetrics ? new TargetMetrics(new SimpleMeterRegistry())
                : TransportObserver.NONE;
        try (RdmaTargetFixture fixture = new RdmaTargetFixture(dir, 8, observer, options);
             ScriptedRdmaHost admin = ScriptedRdmaHost.connect(fixture.address, 0, 32)) {
            assertEquals(0, admin.connectCommand(0, 31, 0xFFFF, RdmaTargetFixture.SUBNQN, RdmaTargetFixture.HOST)
                    .status());
            assertEquals(0, admin.propertySet(0x14, ScriptedRdmaHost.CC_ENABLE_NVM).status());
            int cntlid = fixture.subsystem.controllers().iterator().next().id();
            try (ScriptedRdmaHost io = ScriptedRdmaHost.connect(fixture.address, 1, 32)) {
                assertEquals(0, io.connectCommand(1, 31, cntlid, RdmaTargetFixture.SUBNQN, RdmaTargetFixture.HOST)
                        .status());
                long[] ids = fixture.transport.pollThreadIds();
                // warm up until the JIT has compiled the path (interpreted and C1 code allocates what C2's escape
                // analysis removes): windows until one allocates (almost) nothing, bounded in time
                StringBuilder warmup = new StringBuilder();
                long deadline = System.nanoTime() + WARMUP_LIMIT.toNanos();
                int i = 0;
                int warmupWindows = 0;
                while (true) {
                    long start = allocated(ids);
                    for (int k = 0; k < WINDOW; k++) {
                        iteration(io, i++);
                    }
                    long bytes = allocated(ids) - start;
                    warmup.append(' ').append(bytes);
                    warmupWindows++;
                    if ((warmupWindows >= 3 && bytes <= SLACK_BYTES / MEASURED_WINDOWS)
                            || System.nanoTime() > deadline) {
                        break;
                    }
                }
                long[] windows = new long[MEASURED_WINDOWS];
                long total = 0;
                for (int w = 0; w < MEASURED_WINDOWS; w++) {
                    long start = allocated(ids);
                    for (int k = 0; k < WINDOW; k++) {
                        iteration(io, i++);
                    }
                    windows[w] = allocated(ids) - start;
                    total += windows[w];
                }
                long commands = (long) MEASURED_WINDOWS * WINDOW * COMMANDS_PER_ITERATION
                        + 2L * (MEASURED_WINDOWS * WINDOW / 50);
                String perThread = " windows of " + WINDOW + " iterations: warm-up" + warmup + "; measured "
                        + java.util.Arrays.toString(windows);
                System.out.printf("target steady state (metrics %b, spin %d µs): %d bytes allocated by the poll"
                        + " group over %d commands (%.1f bytes/command);%s%n", withMetrics, spinMicros, total,
                        commands, (double) total / commands, perThread);
                // An allocation per command shows in every window (>= 16 bytes x ~600 commands). One window may
                // still catch the JIT deoptimizing a path first taken late (e.g. a park when the spin budget is
                // 0): interpreted code allocates what C2's escape analysis removes, until it recompiles. So: at
                // most one window above the per-window slack, and the others together within the slack.
                long perWindow = SLACK_BYTES / MEASURED_WINDOWS;
                int over = 0;
                long rest = 0;
                for (long w : windows) {
                    if (w > perWindow) {
                        over++;
                    } else {
                        rest += w;
                    }
                }
                assertTrue(over <= 1 && rest <= SLACK_BYTES, "the poll thread allocated " + total + " bytes over "
                        + commands + " commands:" + perThread);
            }
        }
    }

    /** Bytes the poll threads allocated so far (a long per thread read; nothing allocated on their side). */
    private static long allocated(long[] ids) {
        long sum = 0;
        for (long id : ids) {
            long n = THREADS.getThreadAllocatedBytes(id);
            assertTrue(n >= 0, "allocation measurement unavailable for thread " + id);
            sum += n;
        }
        return sum;
    }

    /** One round of commands; every Read checks it got the bytes the Write before it put there. */
    private static void iteration(ScriptedRdmaHost io, int i) throws Exception {
        byte mark = (byte) (i * 31 + 7);
        long slbaRam = (i % 64) * 8L;
        long slbaFile = i % 64;
        // RAM namespace (512-byte blocks): keyed Write, keyed Read, keyed Read with invalidate
        io.data.asSlice(0, 4096).fill(mark);
        SubmissionQueueEntry w = io.readWrite(0x01, 1, slbaRam, 8);
        io.keyed(w, 0, 4096, false);
        expectSuccess(io.execute(), "RAM write");
        io.data.asSlice(65536, 4096).fill((byte) 0);
        SubmissionQueueEntry r = io.readWrite(0x02, 1, slbaRam, 8);
        io.keyed(r, 65536, 4096, false);
        expectSuccess(io.execute(), "RAM read");
        expectSame(io, 0, 65536);
        io.data.asSlice(131072, 4096).fill((byte) 0);
        SubmissionQueueEntry ri = io.readWrite(0x02, 1, slbaRam, 8);
        io.keyed(ri, 131072, 4096, true);
        ScriptedRdmaHost.Response invalidated = io.execute();
        expectSuccess(invalidated, "RAM read with invalidate");
        assertTrue(invalidated.withInvalidate(), "Send with Invalidate");
        expectSame(io, 0, 131072);
        // file namespace (4096-byte blocks): keyed Write, keyed Read
        io.data.asSlice(196608, 4096).fill((byte) ~mark);
        SubmissionQueueEntry fw = io.readWrite(0x01, 2, slbaFile, 1);
        io.keyed(fw, 196608, 4096, false);
        expectSuccess(io.execute(), "file write");
        io.data.asSlice(262144, 4096).fill((byte) 0);
        SubmissionQueueEntry fr = io.readWrite(0x02, 2, slbaFile, 1);
        io.keyed(fr, 262144, 4096, false);
        expectSuccess(io.execute(), "file read");
        expectSame(io, 196608, 262144);
        // in-capsule Write of 4 KiB to the RAM namespace
        byte[] inline = new byte[4096];
        java.util.Arrays.fill(inline, mark);
        SubmissionQueueEntry cw = io.readWrite(0x01, 1, 512 + slbaRam, 8);
        expectSuccess(io.execute(io.inCapsule(cw, inline)), "in-capsule write");
        if (i % 50 == 0) {
            expectSuccess(io.execute(flush(io, 1)), "RAM flush");
            expectSuccess(io.execute(flush(io, 2)), "file flush");
        }
    }

    private static int flush(ScriptedRdmaHost io, long nsid) {
        io.newSqe(0x00).nsid(nsid);
        return 64;
    }

    private static void expectSuccess(ScriptedRdmaHost.Response r, String what) {
        if (r.status() != 0) {
            throw new AssertionError(what + ": " + Status.fromField(r.status()));
        }
    }

    private static void expectSame(ScriptedRdmaHost io, long written, long read) {
        MemorySegment a = io.data.asSlice(written, 4096);
        MemorySegment b = io.data.asSlice(read, 4096);
        assertEquals(-1, a.mismatch(b), "the Read returned what the Write stored");
    }
}
