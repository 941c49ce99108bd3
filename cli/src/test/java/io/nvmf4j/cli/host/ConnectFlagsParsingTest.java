package io.nvmf4j.cli.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.protocol.Nqn;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** nvme-cli's connect flags travel from the command line into ConnectOptions one to one. */
class ConnectFlagsParsingTest {

    private static IdentifyCommand parseIdentify(String... args) {
        CommandLine cl = CliRunner.commandLine();
        CommandLine.ParseResult pr = cl.parseArgs(args);
        return (IdentifyCommand) pr.subcommand().commandSpec().userObject();
    }

    @Test
    void everyNvmeCliFlagReachesTheConnectOptions() {
        String uuid = "9a6b8d1e-1111-2222-3333-444455556666";
        IdentifyCommand c = parseIdentify("identify", "-t", "rdma", "-a", "127.0.0.1", "-s", "4421",
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
        IdentifyCommand c = parseIdentify("identify", "-a", "127.0.0.1");
        ConnectOptions o = c.fabric.builder(Nqn.parse("nqn.2026-12.io.nvmf4j:x")).build();
        assertEquals(4420, o.address().getPort());
        assertNull(o.provider(), "--provider auto leaves the choice to the library");
        assertEquals(ConnectOptions.DEFAULT_QUEUE_SIZE, o.queueSize());
        assertNull(c.fabric.subsystemNqn());
    }

    @Test
    void hostIdIsDerivedFromAUuidHostNqnAsNvmeCliDoes() {
        String uuid = "0f0e0d0c-0b0a-0908-0706-050403020100";
        IdentifyCommand c = parseIdentify("identify", "-q", "nqn.2014-08.org.nvmexpress:uuid:" + uuid);
        assertEquals(UUID.fromString(uuid), c.fabric.hostIdentity().hostId());
    }

    @Test
    void aTransportOtherThanRdmaIsOneUsageLineWithExitCode2() {
        CliRunner.Result r = CliRunner.run("discover", "-t", "tcp", "-a", "127.0.0.1");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertEquals("nvmf4j: transport 'tcp' is not supported: nvmf4j speaks NVMe over RDMA (-t rdma)\n",
                r.err());
        assertEquals("", r.out());
    }

    @Test
    void aMalformedNqnIsOneUsageLine() {
        CliRunner.Result r = CliRunner.run("identify", "-n", "not an nqn", "-a", "127.0.0.1");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertTrue(r.err().startsWith("nvmf4j: --nqn 'not an nqn' is not an NQN"), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }

    @Test
    void readWithoutABlockCountIsAUsageError() {
        CliRunner.Result r = CliRunner.run("read", "-a", "127.0.0.1", "-n", "nqn.2026-12.io.nvmf4j:x");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertEquals("nvmf4j: read: --block-count is required\n", r.err());
    }

    @Test
    void anUnknownOptionIsPicoclisUsageErrorNotAStackTrace() {
        CliRunner.Result r = CliRunner.run("discover", "--no-such-flag");
        assertEquals(2, r.exitCode());
        assertTrue(r.err().startsWith("Unknown option: '--no-such-flag'"), r.err());
        assertFalse(r.err().contains("\tat "), r.err());
    }
}
