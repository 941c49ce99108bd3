package io.nvmf4j.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.cli.host.FailureReport;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** spdk_nvme_perf / fio letters: -q depth, -o size, -w pattern, -M read share, -t time, -a warm-up, -P, -r. */
class PerfOptionsTest {

    private static PerfCli parse(String... args) {
        CommandLine.ParseResult pr = CliRunner.commandLine().parseArgs(args);
        return (PerfCli) pr.subcommand().commandSpec().userObject();
    }

    @Test
    void spdkLettersBecomeTheSpec() {
        PerfSpec s = parse("perf", "-q", "8", "-o", "128k", "-w", "randrw", "-M", "30", "-t", "2.5", "-a", "0",
                "-P", "2", "--verify", "--size", "64m", "--traddr", "127.0.0.1", "--trsvcid", "4421").spec();
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
        assertTrue(r.err().startsWith("Invalid value for option '--io-pattern': 'sideways' is not a workload"),
                r.err());
    }

    @Test
    void aDepthOutOfRangeIsAUsageLine() {
        CliRunner.Result r = CliRunner.run("perf", "-q", "0", "--traddr", "127.0.0.1");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertEquals("nvmf4j: perf: -q 0 outside 1..1023\n", r.err());
    }

    @Test
    void everyHostCommandHasHelp() {
        for (String command : new String[] {"discover", "identify", "read", "write", "perf", "demo"}) {
            CliRunner.Result r = CliRunner.run(command, "--help");
            assertEquals(0, r.exitCode(), command + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: nvmf4j " + command), r.out());
        }
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

    @Test
    void minusAIsSpdksWarmUpTimeAndMinusPTheQueuePairs() {
        PerfCli c = parse("perf", "-a", "3", "-P", "4", "-w", "randread");
        assertEquals(Duration.ofSeconds(3), c.spec().ramp(), "spdk_nvme_perf -a/--warmup-time");
        assertEquals(4, c.spec().queues(), "spdk_nvme_perf -P/--num-qpairs");
        assertEquals(Duration.ofSeconds(2), parse("perf", "--warmup-time", "2").spec().ramp());
        assertEquals(Duration.ofSeconds(2), parse("perf", "--ramp", "2").spec().ramp(), "--ramp kept");
    }

    @Test
    void rwmixreadDefaultsToFios50() {
        assertEquals(50, parse("perf", "-w", "randrw").spec().effectiveReadPercent());
    }

    @Test
    void minusRTakesSpdksTransportIdString() {
        SpdkTransportId t = SpdkTransportId.parse(
                "trtype:RDMA adrfam:IPv4 traddr:192.0.2.7 trsvcid:4421 subnqn:nqn.2016-06.io.spdk:cnode1 ns:2");
        assertEquals("192.0.2.7", t.traddr());
        assertEquals(4421, t.trsvcid());
        assertEquals("nqn.2016-06.io.spdk:cnode1", t.subnqn());
        assertEquals(2L, t.nsid());
        assertEquals("fe80::1", SpdkTransportId.parse("trtype=rdma traddr=fe80::1").traddr());
        PerfCli c = parse("perf", "-r", "trtype:RDMA adrfam:IPv4 traddr:127.0.0.1 trsvcid:4421");
        assertEquals("trtype:RDMA adrfam:IPv4 traddr:127.0.0.1 trsvcid:4421", c.transportId);
    }

    @Test
    void aTransportIdOfAnotherTransportIsAUsageLine() {
        CliRunner.Result r = CliRunner.run("perf", "-r", "trtype:FC traddr:127.0.0.1 trsvcid:4420");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertEquals("nvmf4j: perf: -r trtype:FC is not supported: nvmf4j speaks NVMe over RDMA and TCP "
                + "(trtype:RDMA, trtype:TCP)\n", r.err());
        assertEquals("tcp", SpdkTransportId.parse("trtype:TCP traddr:127.0.0.1 trsvcid:4420").trtype());
    }

    @Test
    void perfHasNoShortConnectLettersButSpdks() {
        CommandLine.Model.CommandSpec spec = CliRunner.commandLine().getSubcommands().get("perf").getCommandSpec();
        assertEquals("--warmup-time", spec.findOption("-a").longestName());
        assertEquals("--num-qpairs", spec.findOption("-P").longestName());
        assertEquals("--transport-id", spec.findOption("-r").longestName());
        assertEquals(1, spec.findOption("--traddr").names().length);
    }
}
