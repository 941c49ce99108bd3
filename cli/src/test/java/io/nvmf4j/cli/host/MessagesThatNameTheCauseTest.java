package io.nvmf4j.cli.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.cli.FabricArgs;
import io.nvmf4j.cli.LoopbackTarget;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubsystemNamespace;
import io.nvmf4j.target.SubsystemNqn;
import io.nvmf4j.target.backend.RamBackend;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a user types wrong in the first hour, and the one line that must say what is wrong: a subsystem the target
 * does not have, a host it does not allow (as Linux logs the Connect's IATTR/IPO), a log read in part where the
 * target returns it only whole, a host name that does not resolve.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MessagesThatNameTheCauseTest {

    static final String OPEN = "nqn.2026-12.io.nvmf4j:open";
    static final String CLOSED = "nqn.2026-12.io.nvmf4j:closed";
    static final String ALLOWED = "nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-0000-4000-8000-000000000001";
    static final String STRANGER = "nqn.2014-08.org.nvmexpress:uuid:bbbbbbbb-0000-4000-8000-000000000002";
    static LoopbackTarget target;
    static String port;

    @BeforeAll
    static void startTarget() throws Exception {
        Subsystem open = Subsystem.builder(SubsystemNqn.of(OPEN)).serial("NVMF4JMSG0001").allowAnyHost(true).build();
        open.addNamespace(SubsystemNamespace.of(1, RamBackend.allocate(1L << 20, 512)));
        Subsystem closed = Subsystem.builder(SubsystemNqn.of(CLOSED)).serial("NVMF4JMSG0002").allowAnyHost(false)
                .allowHost(ALLOWED).build();
        closed.addNamespace(SubsystemNamespace.of(1, RamBackend.allocate(1L << 20, 512)));
        target = LoopbackTarget.serving(open, closed);
        port = Integer.toString(target.port());
    }

    @AfterAll
    static void stop() {
        if (target != null) {
            target.close();
        }
    }

    private static CliRunner.Result run(String... args) {
        return CliRunner.run(FabricArgs.at(target.port(), args, "--hostnqn", STRANGER));
    }

    /** The last line of stderr: the failure (a warning about the host identity may come before it). */
    private static String failure(CliRunner.Result r) {
        String[] lines = r.err().strip().split("\n");
        return lines[lines.length - 1];
    }

    @Test
    void aSubsystemTheTargetDoesNotHaveIsNamedAsLinuxLogsIt() {
        String wrong = "nqn.2026-12.io.nvmf4j:no-such";
        CliRunner.Result r = run("id-ctrl", "--nqn", wrong);
        assertEquals(1, r.exitCode(), r.err());
        assertEquals("nvmf4j: cannot connect to 127.0.0.1:" + port + ": Connect admin queue to " + wrong
                + ": CONNECT_INVALID_PARAM (0x4182): Connect Invalid Parameters: Connect Invalid Data Parameter,"
                + " subsysnqn \"" + wrong + "\" (the target has no subsystem of that name on this port; discover"
                + " lists those it has)", failure(r));
    }

    @Test
    void aHostTheSubsystemDoesNotAllowIsNamedAsLinuxLogsIt() {
        CliRunner.Result r = run("id-ctrl", "--nqn", CLOSED);
        assertEquals(1, r.exitCode(), r.err());
        assertEquals("nvmf4j: cannot connect to 127.0.0.1:" + port + ": Connect admin queue to " + CLOSED
                + ": CONNECT_INVALID_HOST (0x4184): Connect Invalid Host: Connect for subsystem " + CLOSED
                + " is not allowed, hostnqn: " + STRANGER + " (the subsystem does not list this host; the target's"
                + " allowed hosts must name it)", failure(r));
    }

    @Test
    void aPartOfTheSmartLogSaysTheLogIsReadWhole() {
        CliRunner.Result r = run("get-log", "--nqn", OPEN, "-i", "2", "-l", "64");
        assertEquals(1, r.exitCode(), r.err());
        assertEquals("nvmf4j: get-log failed: INTERNAL (0x0006): Internal Error: the SMART / Health Information"
                + " log (02h) is 512 bytes, and targets like Linux nvmet return it only whole: read it with -l 512",
                failure(r));
        CliRunner.Result whole = run("get-log", "--nqn", OPEN, "-i", "2", "-l", "512");
        assertEquals(0, whole.exitCode(), whole.err());
    }

    @Test
    void aHostNameThatDoesNotResolveIsSaidSo() {
        CliRunner.Result r = CliRunner.run("discover", "--traddr", "no-such-host.invalid", "--trsvcid", port,
                "--provider", "softiwarp", "--hostnqn", STRANGER);
        assertEquals(1, r.exitCode(), r.err());
        assertEquals("nvmf4j: failed to resolve host no-such-host.invalid: traddr must be the target's IP address"
                + " or a name that resolves to one", failure(r));
        assertFalse(r.err().contains("UnresolvedAddressException"), r.err());
    }
}
