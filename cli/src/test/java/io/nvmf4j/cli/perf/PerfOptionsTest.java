package io.nvmf4j.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.cli.host.FailureReport;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** SPDK perf / fio letters: -q depth, -o size, -w pattern, -M read share, -t time. */
class PerfOptionsTest {

    private static PerfCommand parse(String... args) {
        CommandLine.ParseResult pr = CliRunner.commandLine().parseArgs(args);
        return (PerfCommand) pr.subcommand().commandSpec().userObject();
    }

    @Test
    void spdkLettersBecomeTheSpec() {
        PerfSpec s = parse("perf", "-q", "8", "-o", "128k", "-w", "randrw", "-M", "30", "-t", "2.5", "--ramp", "0",
                "--queues", "2", "--verify", "--size", "64m", "-a", "127.0.0.1", "-s", "4421").spec();
        assertEquals(8, s.depth());
        assertEquals(128 * 1024, s.ioSize());
        assertEquals(Workload.RANDRW, s.workload());
        assertEquals(30, s.effectiveReadPercent());
        assertEquals(Duration.ofMillis(2500), s.duration());
        assertEquals(Duration.ZERO, s.ramp());
        assertEquals(2, s.queues());
        assertTrue(s.verify());
        assertEquals(64L << 20, s.regionBytes());
    }

    @Test
    void pureWorkloadsIgnoreM() {
        assertEquals(100, parse("perf", "-w", "read", "-M", "10").spec().effectiveReadPercent());
        assertEquals(0, parse("perf", "-w", "randwrite").spec().effectiveReadPercent());
    }

    @Test
    void defaultsAre4KiBRandomReadAtDepth32For10Seconds() {
        PerfSpec s = parse("perf").spec();
        assertEquals("randread, 4096-byte I/O, queue depth 32 x 1 queue, 10 s after 1 s ramp", s.describe());
    }

    @Test
    void anUnknownWorkloadIsOneUsageError() {
        CliRunner.Result r = CliRunner.run("perf", "-w", "sideways");
        assertEquals(2, r.exitCode());
        assertTrue(r.err().startsWith("Invalid value for option '--workload': 'sideways' is not a workload"),
                r.err());
    }

    @Test
    void aDepthOutOfRangeIsAUsageLine() {
        CliRunner.Result r = CliRunner.run("perf", "-q", "0", "-a", "127.0.0.1");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertEquals("nvmf4j: perf: -q 0 outside 1..1023\n", r.err());
    }

    @Test
    void sizesTakeBinarySuffixes() {
        SizeConverter c = new SizeConverter();
        assertEquals(4096L, c.convert("4096"));
        assertEquals(4096L, c.convert("4k"));
        assertEquals(131072L, c.convert("128K"));
        assertEquals(1L << 20, c.convert("1MiB"));
        assertEquals(1L << 30, c.convert("1g"));
    }
}
