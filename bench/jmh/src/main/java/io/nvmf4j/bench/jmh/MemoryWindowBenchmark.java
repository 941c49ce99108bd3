package io.nvmf4j.bench.jmh;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaProviders;
import java.lang.foreign.Arena;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the initiator pays per keyed command so that a target reaches only that command's bytes (issue 13, F6):
 * one {@link MemoryWindow#bind} over the command's slice of a 1 MiB bounce region and one
 * {@link MemoryWindow#invalidate} when the response arrives, on softiwarp. The pair is the host's whole extra work
 * per I/O; compare it with a softiwarp round trip of tens of microseconds.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class MemoryWindowBenchmark {

    private static final Set<AccessFlag> REMOTE_WRITE = EnumSet.of(AccessFlag.REMOTE_WRITE);

    private Arena arena;
    private RdmaDevice device;
    private ProtectionDomain pd;
    private MemoryRegion region;
    private MemoryWindow window;
    private long offset;

    @Setup
    @SuppressWarnings("MustBeClosedChecker") // closed in tearDown(), as JMH pairs them
    public void setup() throws Exception {
        arena = Arena.ofShared();
        device = RdmaProviders.byName("softiwarp").openDevice(null);
        pd = device.allocatePd();
        region = pd.register(arena.allocate(1 << 20, 4096), EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND));
        window = pd.allocateWindow();
    }

    @TearDown
    public void tearDown() {
        window.close();
        region.close();
        pd.close();
        device.close();
        arena.close();
    }

    /** A 4 KiB read's window: bound for the command, invalidated at its response. */
    @Benchmark
    public int bindAndInvalidate4k() throws Exception {
        offset = (offset + 4096) & ((1 << 20) - 1);
        int rkey = window.bind(region, offset, 4096, REMOTE_WRITE);
        window.invalidate();
        return rkey;
    }
}
