package io.nvmf4j.cli.host;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.auth.DhchapSecret;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * nvme-cli's {@code -S/--dhchap-secret} and {@code -C/--dhchap-ctrl-secret}: letters on the commands with the
 * connect letters (identify, discover, list-subsys, mount), long names on the device commands (whose own options
 * use the letters), into ConnectOptions; refused secrets are one usage line that never quotes them; end to end
 * against a Java target that requires authentication.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DhchapFlagsTest {

    static final SecureRandom RANDOM = new SecureRandom();
    static final DhchapSecret KEY = DhchapSecret.generate(1, 32, RANDOM);
    static final DhchapSecret CTRL = DhchapSecret.generate(2, 48, RANDOM);
    static final String HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:3f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";

    @TempDir
    Path dir;

    private static <T> T parse(Class<T> type, String... args) {
        CommandLine.ParseResult pr = CliRunner.commandLine().parseArgs(args);
        return type.cast(pr.subcommand().commandSpec().userObject());
    }

    @Test
    void lettersOnIdentifyReachTheConnectOptions() {
        IdentifyCli c = parse(IdentifyCli.class, "identify", "-a", "127.0.0.1", "-S", KEY.format(),
                "-C", CTRL.format());
        ConnectOptions o = c.fabric.builder(Nqn.parse("nqn.2026-12.io.nvmf4j:x")).build();
        DhchapKeys keys = o.dhchap();
        assertEquals(KEY, keys.key());
        assertEquals(CTRL, keys.ctrlKey());
        assertFalse(o.toString().contains(KEY.format().substring(10, 30)), "options never print a key");
        // the discovery controller gets the host secret only
        assertNull(c.fabric.discoveryOptions().dhchap().ctrlKey());
        assertEquals(KEY, c.fabric.discoveryOptions().dhchap().key());
    }

    @Test
    void longNamesOnDeviceCommandsAndMount() {
        IdCtrlCli c = parse(IdCtrlCli.class, "id-ctrl", "--dhchap-secret", KEY.format());
        assertEquals(KEY, c.device.fabric.builder(Nqn.parse("nqn.2026-12.io.nvmf4j:x")).build().dhchap().key());
        io.nvmf4j.cli.mount.MountCli m = parse(io.nvmf4j.cli.mount.MountCli.class, "mount", "-S",
                KEY.format(), "-C", CTRL.format(), dir.toString());
        assertNotNull(m);
        assertTrue(LongConnectFlags.CONNECT_OPTIONS.contains("--dhchap-secret"));
    }

    @Test
    void ctrlSecretWithoutSecretAndBadSecretsAreOneUsageLine() {
        CliRunner.Result r = CliRunner.run("identify", "-a", "127.0.0.1", "-n", "nqn.2026-12.io.nvmf4j:x",
                "-C", CTRL.format(), "--provider", "softiwarp");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertEquals("nvmf4j: --dhchap-ctrl-secret requires --dhchap-secret\n", r.err());

        // one base64 character of the key changed, so its CRC-32 no longer matches (String.replace would change
        // every copy of that character, the "DHHC-1:01:" prefix too when the key's 13th character is in it)
        StringBuilder corrupted = new StringBuilder(KEY.format());
        corrupted.setCharAt(12, corrupted.charAt(12) == 'A' ? 'B' : 'A');
        String bad = corrupted.toString();
        r = CliRunner.run("identify", "-a", "127.0.0.1", "-n", "nqn.2026-12.io.nvmf4j:x", "-S", bad,
                "--provider", "softiwarp");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertTrue(r.err().startsWith("nvmf4j: --dhchap-secret: DH-HMAC-CHAP secret: "), r.err());
        assertFalse(r.err().contains(bad.substring(10, 30)), "the secret is never echoed");
    }

    @Test
    void keyFileReadableByOthersIsUsedWithAWarning() throws Exception {
        Path file = dir.resolve("host.key");
        Files.writeString(file, KEY.format() + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(KEY, DhchapSecretOption.parse("--dhchap-secret", file.toString(), new PrintStream(err)));
        assertTrue(err.toString(UTF_8).contains("readable by group or others; chmod 600 it"), err.toString(UTF_8));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        err.reset();
        assertEquals(KEY, DhchapSecretOption.parse("--dhchap-secret", file.toString(), new PrintStream(err)));
        assertEquals("", err.toString(UTF_8));
    }

    @Test
    void helpListsTheFlags() {
        CliRunner.Result r = CliRunner.run("identify", "--help");
        assertTrue(r.out().contains("-S, --dhchap-secret"), r.out());
        assertTrue(r.out().contains("-C, --dhchap-ctrl-secret"), r.out());
        r = CliRunner.run("read", "--help");
        assertTrue(r.out().contains("--dhchap-secret"), r.out());
        assertFalse(r.out().contains("-S, --dhchap-secret"), r.out());
    }

    @Test
    void againstATargetThatRequiresAuthentication() throws Exception {
        Nqn subnqn = Nqn.parse("nqn.2026-12.io.nvmf4j:cli-auth");
        NvmeTarget target = new NvmeTarget();
        Port port = Port.rdma(1, "127.0.0.1", "0").build();
        Subsystem s = Subsystem.builder(subnqn).serial("CLIAUTH1").allowHost(HOSTNQN, DhchapKeys.of(KEY, CTRL))
                .build();
        s.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(1, RamBackend.allocate(1 << 20, 512)));
        target.addSubsystem(s);
        target.addPort(port);
        port.addSubsystem(s);
        try (RdmaTransport transport = RdmaTransport.open(target, RdmaTransportOptions.builder().provider("softiwarp")
                .pollGroups(1).spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(8L << 20)
                .completionQueueEntries(4096).build(), TransportObserver.NONE)) {
            String p = Integer.toString(transport.listen(port).getPort());
            String[] base = {"--traddr", "127.0.0.1", "--trsvcid", p, "--nqn", subnqn.value(), "--hostnqn", HOSTNQN,
                "--provider", "softiwarp"};
            CliRunner.Result ok = CliRunner.run(concat(new String[] {"id-ctrl", "--dhchap-secret", KEY.format(),
                "--dhchap-ctrl-secret", CTRL.format()}, base));
            assertEquals(0, ok.exitCode(), ok.err());
            assertTrue(ok.out().contains("CLIAUTH1"), ok.out());

            CliRunner.Result missing = CliRunner.run(concat(new String[] {"id-ctrl"}, base));
            assertNotEquals(0, missing.exitCode());
            assertTrue(missing.err().contains("requires DH-HMAC-CHAP authentication"), missing.err());

            String wrong = DhchapSecret.generate(1, 32, RANDOM).format();
            CliRunner.Result refused = CliRunner.run(concat(new String[] {"id-ctrl", "--dhchap-secret", wrong},
                    base));
            assertNotEquals(0, refused.exitCode());
            assertTrue(refused.err().contains("authentication failed"), refused.err());
            assertFalse(refused.err().contains(wrong.substring(10, 30)));
        } finally {
            target.close();
        }
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
