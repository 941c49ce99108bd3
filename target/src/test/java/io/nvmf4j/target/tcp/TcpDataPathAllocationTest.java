package io.nvmf4j.target.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nvmf4j.target.metrics.TargetMetrics;
import io.nvmf4j.target.rdma.TransportObserver;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The TCP transport's steady-state data path allocates nothing per command, as the RDMA transport's: a raw host
 * drives thousands of 4 KiB in-capsule Writes, R2T'd Writes (R2T + H2CData) and Reads (C2HData + CapsuleResp), and
 * Flushes, at a real target on 127.0.0.1, and the bytes the poll-group thread allocated over the measured windows
 * ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}) must stay under a small fixed bound, far below
 * one object per command. Once with metrics and a spin budget that outlasts a command's round trip (the poll
 * thread polls its sockets and never blocks: the loaded target's path), once without metrics and no spin budget
 * (it blocks in its selector between commands and is woken by each: the idle-to-busy path).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TcpDataPathAllocationTest {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int WINDOW = 100;
    private static final int MEASURED_WINDOWS = 4;
    private static final Duration WARMUP_LIMIT = Duration.ofSeconds(80);
    /** Commands per iteration: in-capsule write, R2T write, two reads, a flush. */
    private static final int COMMANDS_PER_ITERATION = 5;
    /** A counter read and JIT noise; one 16-byte object per command would be ~32 KB over the windows. */
    private static final long SLACK_BYTES = 4096;

    @ParameterizedTest(name = "metrics {0}, spin budget {1} µs, digests {2}")
    @CsvSource({"true, 200000, false", "false, 0, false", "false, 200000, true"})
    void writesReadsAndFlushesAllocateNothingPerCommandOnThePollThread(boolean withMetrics, long spinMicros,
            boolean digests) throws Exception {
        THREADS.setThreadAllocatedMemoryEnabled(true);
        TransportObserver observer = withMetrics ? new TargetMetrics(new SimpleMeterRegistry())
                : TransportObserver.NONE;
        TcpTransportOptions options = TcpTargetFixture.options().spinBudget(Duration.ofNanos(spinMicros * 1000))
                .build();
        try (TcpTargetFixture f = new TcpTargetFixture(options, observer);
             var _ = f.adminHost(false, false);
             RawTcpHost io = f.ioHost(digests, digests)) {
            long[] ids = f.transport.pollThreadIds();
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
                if ((warmupWindows >= 3 && bytes <= SLACK_BYTES / MEASURED_WINDOWS) || System.nanoTime() > deadline) {
                    break;
                }
            }
            long[] windows = new long[MEASURED_WINDOWS];
            for (int w = 0; w < MEASURED_WINDOWS; w++) {
                long start = allocated(ids);
                for (int k = 0; k < WINDOW; k++) {
                    iteration(io, i++);
                }
                windows[w] = allocated(ids) - start;
            }
            long commands = (long) MEASURED_WINDOWS * WINDOW * COMMANDS_PER_ITERATION;
            String detail = " windows of " + WINDOW + " iterations: warm-up" + warmup + "; measured "
                    + Arrays.toString(windows) + " over " + commands + " commands";
            // as the RDMA test: one window may catch the JIT deoptimizing a path first taken late
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
            assertTrue(over <= 1 && rest <= SLACK_BYTES, "the poll thread allocated:" + detail);
        }
    }

    private static long allocated(long[] ids) {
        long sum = 0;
        for (long id : ids) {
            long n = THREADS.getThreadAllocatedBytes(id);
            assertTrue(n >= 0, "allocation measurement unavailable for thread " + id);
            sum += n;
        }
        return sum;
    }

    /** One round of commands; each Read checks it got the bytes the Write before it put there. */
    private static void iteration(RawTcpHost io, int i) throws Exception {
        byte mark = (byte) (i * 31 + 7);
        long slba = (i % 64) * 16L;
        byte[] data = new byte[4096];
        Arrays.fill(data, mark);
        expectSuccess(io.write(1, slba, TcpTargetFixture.BLOCK, data, true), "in-capsule write");
        expectSame(data, io.read(1, slba, 8, TcpTargetFixture.BLOCK), "read after in-capsule write");
        Arrays.fill(data, (byte) (mark + 1));
        expectSuccess(io.write(1, slba + 8, TcpTargetFixture.BLOCK, data, false), "R2T write");
        expectSame(data, io.read(1, slba + 8, 8, TcpTargetFixture.BLOCK), "read after R2T write");
        expectSuccess(io.execute(io.newSqe(0x00).nsid(1), null, null), "flush");
    }

    private static void expectSuccess(RawTcpHost.Response r, String what) {
        assertEquals(0, r.status(), what + ": " + r.cqe());
    }

    private static void expectSame(byte[] expected, RawTcpHost.Response r, String what) {
        expectSuccess(r, what);
        if (!Arrays.equals(expected, r.data())) {
            throw new AssertionError(what + ": data differs");
        }
    }
}
