package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Completion polling on softiwarp's {@link SoftiwarpCompletionQueue} (push is package-private, hence this package):
 * the cost of an empty poll (what a polling loop pays between completions), of a push followed by a poll of one,
 * and of a batch of pushes drained by one poll; and a producer thread (the progress engine) against a polling
 * consumer (the initiator's completion loop).
 */
@State(Scope.Group)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class CompletionQueueBenchmark {

    @Param({"16"})
    public int batch;

    private SoftiwarpCompletionQueue cq;
    private WorkCompletion[] out;
    private long wrId;

    @Setup
    public void setup() {
        cq = new SoftiwarpCompletionQueue(1024, 0);
        out = new WorkCompletion[batch];
        for (int i = 0; i < batch; i++) {
            out[i] = new WorkCompletion();
        }
    }

    @TearDown
    public void tearDown() {
        cq.close();
    }

    @Benchmark
    @Group("emptyPoll")
    public int emptyPoll() {
        return cq.poll(out);
    }

    @Benchmark
    @Group("pushPollOne")
    public int pushPollOne() {
        cq.push(++wrId, WcStatus.SUCCESS, WcOpcode.RECV, 64, 1, false, 0, 0);
        return cq.poll(out);
    }

    /** A batch of completions (QD32 traffic) drained by one poll; time is per batch. */
    @Benchmark
    @Group("pushBatchPollBatch")
    public int pushBatchPollBatch() {
        for (int i = 0; i < batch; i++) {
            cq.push(++wrId, WcStatus.SUCCESS, WcOpcode.RECV, 64, 1, false, 0, 0);
        }
        return cq.poll(out);
    }

    /** Producer and consumer on two threads: time per push (the producer backs off when the ring is full). */
    @Benchmark
    @Group("crossThread")
    public boolean producer() {
        boolean pushed = cq.push(++wrId, WcStatus.SUCCESS, WcOpcode.RECV, 64, 1, false, 0, 0);
        if (!pushed) {
            Thread.onSpinWait();
        }
        return pushed;
    }

    @Benchmark
    @Group("crossThread")
    public int consumer() {
        return cq.poll(out);
    }
}
