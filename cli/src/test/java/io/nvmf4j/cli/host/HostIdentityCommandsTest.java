package io.nvmf4j.cli.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.initiator.HostIdentity;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * nvme-cli's gen-hostnqn and show-hostnqn, and the identity the host commands connect with, from files in a
 * temporary folder standing in for /etc/nvme and the DMI system UUID (never the machine's).
 */
class HostIdentityCommandsTest {

    static final String DMI = "4c4c4544-0034-3010-8035-b9c04f503432";

    private static HostIdentity.Sources sources(Path dir) {
        return HostIdentity.Sources.of(dir.resolve("etc-nvme"), dir.resolve("product_uuid"));
    }

    private static String run(Object command, HostIdentity.Sources sources) {
        if (command instanceof GenHostnqnCli g) {
            g.sources = sources;
        } else if (command instanceof ShowHostnqnCli s) {
            s.sources = sources;
        }
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(command);
        cl.setOut(new PrintWriter(out, true));
        assertEquals(0, cl.execute());
        return out.toString();
    }

    @Test
    void genHostnqnPrintsTheUuidNqnOfTheDmiSystemUuid(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("product_uuid"), DMI + "\n");
        assertEquals("nqn.2014-08.org.nvmexpress:uuid:" + DMI + "\n", run(new GenHostnqnCli(), sources(dir)));
        assertEquals("nqn.2014-08.org.nvmexpress:uuid:" + DMI + "\n", run(new GenHostnqnCli(), sources(dir)),
                "the same on every run");
    }

    @Test
    void genHostnqnWithoutASystemUuidPrintsARandomOne(@TempDir Path dir) {
        String first = run(new GenHostnqnCli(), sources(dir));
        assertTrue(first.matches("nqn\\.2014-08\\.org\\.nvmexpress:uuid:[0-9a-f-]{36}\n"), first);
        assertNotEquals(first, run(new GenHostnqnCli(), sources(dir)));
    }

    @Test
    void showHostnqnPrintsTheFileElseWhatGenHostnqnWould(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("product_uuid"), DMI + "\n");
        assertEquals("nqn.2014-08.org.nvmexpress:uuid:" + DMI + "\n", run(new ShowHostnqnCli(), sources(dir)));
        Files.createDirectories(dir.resolve("etc-nvme"));
        Files.writeString(dir.resolve("etc-nvme/hostnqn"), "nqn.2014-08.com.example:host1\n");
        assertEquals("nqn.2014-08.com.example:host1\n", run(new ShowHostnqnCli(), sources(dir)));
    }

    @Test
    void bothCommandsAreOnTheCommandLine() {
        assertEquals(0, CliRunner.run("gen-hostnqn", "--help").exitCode());
        assertEquals(0, CliRunner.run("show-hostnqn", "--help").exitCode());
    }

    private static IdentifyCli identify(Path dir, String... args) {
        CommandLine.ParseResult pr = CliRunner.commandLine().parseArgs(args);
        IdentifyCli c = (IdentifyCli) pr.subcommand().commandSpec().userObject();
        c.fabric.identitySources = sources(dir);
        return c;
    }

    @Test
    void withoutHostnqnFileTheHostCommandsConnectAsTheDmiUuidSilently(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("product_uuid"), DMI + "\n");
        ByteArrayOutputStream notices = new ByteArrayOutputStream();
        HostIdentity id = identify(dir, "identify", "-a", "127.0.0.1").fabric
                .hostIdentity(new PrintStream(notices, true, StandardCharsets.UTF_8));
        assertEquals("nqn.2014-08.org.nvmexpress:uuid:" + DMI, id.hostNqn().value());
        assertEquals(UUID.fromString(DMI), id.hostId());
        assertEquals("", notices.toString(StandardCharsets.UTF_8));
        HostIdentity again = identify(dir, "identify", "-a", "127.0.0.1").fabric.hostIdentity(
                new PrintStream(notices, true, StandardCharsets.UTF_8));
        assertEquals(id, again, "the next command is the same host");
    }

    @Test
    void aGeneratedIdentityIsSaidOnceAndKeptForTheWholeCommand(@TempDir Path dir) {
        ByteArrayOutputStream notices = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(notices, true, StandardCharsets.UTF_8);
        FabricOptions fabric = identify(dir, "identify", "-a", "127.0.0.1").fabric;
        HostIdentity first = fabric.hostIdentity(err);
        assertSame(first, fabric.hostIdentity(err), "discovery and connect of one command are one host");
        String said = notices.toString(StandardCharsets.UTF_8);
        assertTrue(said.startsWith("nvmf4j: warning: using auto generated hostid and hostnqn ("
                + first.hostNqn() + ")"), said);
        assertEquals(1, said.lines().count(), said);
    }

    @Test
    void aHostidFileIsUsedBesideAGivenHostnqnAsLibnvmeDoes(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("etc-nvme"));
        Files.writeString(dir.resolve("etc-nvme/hostid"), "5b8f0f7e-2f43-4d6b-9b3a-0123456789ab\n");
        HostIdentity id = identify(dir, "identify", "-a", "127.0.0.1", "-q", "testhost").fabric
                .hostIdentity(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertEquals("testhost", id.hostNqn().value());
        assertEquals(UUID.fromString("5b8f0f7e-2f43-4d6b-9b3a-0123456789ab"), id.hostId());
    }
}
