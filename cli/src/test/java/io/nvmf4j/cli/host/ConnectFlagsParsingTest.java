package io.nvmf4j.cli.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.protocol.Nqn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** nvme-cli's connect flags travel from the command line into ConnectOptions one to one. */
class ConnectFlagsParsingTest {

    private static IdentifyCli parseIdentify(String... args) {
        CommandLine cl = CliRunner.commandLine();
        CommandLine.ParseResult pr = cl.parseArgs(args);
        return (IdentifyCli) pr.subcommand().commandSpec().userObject();
    }

    @Test
    void everyNvmeCliFlagReachesTheConnectOptions() {
        String uuid = "9a6b8d1e-1111-2222-3333-444455556666";
        IdentifyCli c = parseIdentify("identify", "-t", "rdma", "-a", "127.0.0.1", "-s", "4421",
                "-n", "nqn.2026-12.io.nvmf4j:x", "-q", "nqn.2014-08.org.nvmexpress:uuid:" + uuid, "-I", uuid,
                "-i", "3", "-Q", "64", "-k", "7", "-l", "30", "-c", "2", "--provider", "softiwarp");
        ConnectOptions o = c.fabric.builder(c.fabric.subsystemNqn()).build();
        assertEquals(4421, o.address().getPort());
        assertEquals("127.0.0.1", o.address().getHostString());
        assertEquals(Nqn.parse("nqn.2026-12.io.nvmf4j:x"), o.subsystemNqn());
        assertEquals("nqn.2014-08.org.nvmexpress:uuid:" + uuid, o.host().hostNqn().value());
        assertEquals(UUID.fromString(uuid), o.host().hostId());
        assertEquals(3, o.ioQueues());
        assertEquals(64, o.queueSize());
        assertEquals(Duration.ofSeconds(7), o.keepAliveTimeout());
        assertEquals(Duration.ofSeconds(30), o.ctrlLossTimeout());
        assertEquals(Duration.ofSeconds(2), o.reconnectDelay());
        assertEquals("softiwarp", o.provider());
        assertEquals("127.0.0.1:4421", c.fabric.endpoint());
    }

    @Test
    void defaultsAreNvmeClisTrsvcid4420AndAutomaticProvider() {
        IdentifyCli c = parseIdentify("identify", "-a", "127.0.0.1");
        ConnectOptions o = c.fabric.builder(Nqn.parse("nqn.2026-12.io.nvmf4j:x")).build();
        assertEquals(4420, o.address().getPort());
        assertEquals(FabricOptions.provider("auto", FabricOptions.UVERBS_SYSFS), o.provider(),
                "--provider auto: the library's choice, or softiwarp outright when the kernel has no RDMA device");
        assertEquals(ConnectOptions.DEFAULT_QUEUE_SIZE, o.queueSize());
        assertNull(c.fabric.subsystemNqn());
    }

    @Test
    void hostIdIsDerivedFromAUuidHostNqnAsNvmeCliDoes(@TempDir Path dir) {
        String uuid = "0f0e0d0c-0b0a-0908-0706-050403020100";
        IdentifyCli c = parseIdentify("identify", "-q", "nqn.2014-08.org.nvmexpress:uuid:" + uuid);
        c.fabric.identitySources = io.nvmf4j.initiator.HostIdentity.Sources.of(dir, null); // no hostid file here
        assertEquals(UUID.fromString(uuid), c.fabric.hostIdentity().hostId());
    }

    @Test
    void aTransportOtherThanRdmaOrTcpIsOneUsageLineWithExitCode2() {
        CliRunner.Result r = CliRunner.run("discover", "-t", "fc", "-a", "127.0.0.1");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertEquals("nvmf4j: transport 'fc' is not supported: nvmf4j speaks NVMe over RDMA and TCP "
                + "(-t rdma, -t tcp)\n", r.err());
        assertEquals("", r.out());
    }

    @Test
    void tcpWithDigestsBecomesTheConnectOptionsAndNeedsNoRdmaProvider() {
        IdentifyCli c = parseIdentify("identify", "-t", "tcp", "-a", "127.0.0.1", "--hdr-digest", "--data-digest",
                "-q", "nqn.2014-08.org.nvmexpress:uuid:0f0e0d0c-0b0a-0908-0706-050403020100",
                "-I", "0f0e0d0c-0b0a-0908-0706-050403020100");
        ConnectOptions o = c.fabric.builder(Nqn.parse("nqn.2026-12.io:t"))
                .build();
        assertEquals("tcp", o.transport());
        assertTrue(o.headerDigest() && o.dataDigest());
        assertNull(o.provider());
        ConnectOptions plain = parseIdentify("identify", "-a", "127.0.0.1",
                "-q", "nqn.2014-08.org.nvmexpress:uuid:0f0e0d0c-0b0a-0908-0706-050403020100",
                "-I", "0f0e0d0c-0b0a-0908-0706-050403020100").fabric.builder(
                Nqn.parse("nqn.2026-12.io:t")).build();
        assertEquals("rdma", plain.transport());
        assertFalse(plain.headerDigest() || plain.dataDigest());
    }

    @Test
    void anNqnLinuxWouldRefuseIsOneUsageLine() {
        CliRunner.Result r = CliRunner.run("identify", "-n", "n".repeat(300), "-a", "127.0.0.1");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertTrue(r.err().startsWith("nvmf4j: --nqn 'nnn"), r.err());
        assertTrue(r.err().endsWith("' is not a usable NQN: 300 bytes of UTF-8, more than 223\n"), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }

    @Test
    void readWithoutABlockCountOrDataSizeIsAUsageError() {
        CliRunner.Result r = CliRunner.run("read", "--traddr", "127.0.0.1", "--nqn", "nqn.2026-12.io.nvmf4j:x");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertEquals("nvmf4j: read: give -c/--block-count (0's based) or -z/--data-size\n", r.err());
    }

    @Test
    void readTakesNvmeClisLettersAndTheConnectOptionsLongOnly() {
        CommandLine cl = CliRunner.commandLine();
        CommandLine.ParseResult pr = cl.parseArgs("read", "-n", "2", "-s", "100", "-c", "7", "-z", "4k", "-d",
                "/tmp/x", "-t", "--traddr", "127.0.0.1", "--trsvcid", "4421", "--nqn", "nqn.2026-12.io.nvmf4j:x",
                "--reconnect-delay", "3", "--ctrl-loss-tmo", "9", "--nr-io-queues", "2");
        ReadCli c = (ReadCli) pr.subcommand().commandSpec().userObject();
        assertEquals(2L, c.range.nsid);
        assertEquals(100L, c.range.startBlock);
        assertEquals(8L, c.range.blocks(512), "-c is 0's based: -c 7 is eight blocks");
        assertEquals(4096L, c.range.dataSize);
        assertTrue(c.range.latency);
        ConnectOptions o = c.device.fabric.builder(c.device.fabric.subsystemNqn()).build();
        assertEquals(4421, o.address().getPort());
        assertEquals(Nqn.parse("nqn.2026-12.io.nvmf4j:x"), o.subsystemNqn());
        assertEquals(Duration.ofSeconds(3), o.reconnectDelay());
        assertEquals(Duration.ofSeconds(9), o.ctrlLossTimeout());
        assertEquals(2, o.ioQueues());
    }

    @Test
    void deviceCommandsHaveNoShortConnectLetters() {
        for (String command : new String[] {"id-ctrl", "id-ns", "read", "write", "flush", "dsm", "write-zeroes",
                "get-log", "get-feature", "smart-log", "error-log", "perf"}) {
            CommandLine.Model.CommandSpec spec = CliRunner.commandLine().getSubcommands().get(command)
                    .getCommandSpec();
            for (String name : LongConnectFlags.CONNECT_OPTIONS) {
                CommandLine.Model.OptionSpec o = spec.findOption(name);
                assertEquals(1, o.names().length, command + " " + name + " " + String.join(",", o.names()));
            }
        }
    }

    @Test
    void identifyAndDiscoverKeepNvmeConnectsShortLetters() {
        CommandLine.Model.CommandSpec spec = CliRunner.commandLine().getSubcommands().get("discover").getCommandSpec();
        assertEquals("-a", spec.findOption("--traddr").shortestName());
        assertEquals("-s", spec.findOption("--trsvcid").shortestName());
        assertEquals("-o", spec.findOption("--output-format").shortestName());
    }

    @Test
    void anOutputFormatNvmeCliDoesNotKnowIsAUsageError() {
        CliRunner.Result r = CliRunner.run("discover", "-o", "yaml", "-a", "127.0.0.1");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertEquals("nvmf4j: invalid output format 'yaml': use normal, json or binary\n", r.err());
    }

    @Test
    void anUnknownOptionIsPicoclisUsageErrorNotAStackTrace() {
        CliRunner.Result r = CliRunner.run("discover", "--no-such-flag");
        assertEquals(2, r.exitCode());
        assertTrue(r.err().startsWith("Unknown option: '--no-such-flag'"), r.err());
        assertFalse(r.err().contains("\tat "), r.err());
    }

    @Test
    void autoIsSoftiwarpOutrightWhenTheKernelOffersNoRdmaDevice(@TempDir Path sysfs) throws Exception {
        assertEquals("softiwarp", FabricOptions.provider("auto", sysfs.resolve("absent")), "no infiniband_verbs");
        assertEquals("softiwarp", FabricOptions.provider("auto", sysfs), "no uverbsN in it");
        Files.createDirectory(sysfs.resolve("abi_version"));
        assertEquals("softiwarp", FabricOptions.provider("auto", sysfs));
        Files.createDirectory(sysfs.resolve("uverbs0"));
        assertNull(FabricOptions.provider("auto", sysfs), "a device: the library probes and chooses");
        assertEquals("ibverbs", FabricOptions.provider("ibverbs", sysfs.resolve("absent")), "a named provider stays");
    }

    @Test
    void readHasNoBinaryOutputFormat() {
        CliRunner.Result r = CliRunner.run("read", "-c", "0", "-o", "binary", "--traddr", "127.0.0.1");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertEquals("nvmf4j: read: -o binary: the data itself is raw already (-d FILE, or stdout/stdin)\n", r.err());
    }
}
