package io.nvmf4j.cli.mount;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.cli.host.FailureReport;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code nvmf4j ublk list/del} where this host's kernel has no ublk: a message, not a trace. Against a real
 * ublk_drv (a device whose server was killed, then removed) they run in interop/checks/49-ublk-mount-vs-nvmf4j-serve.sh.
 */
class UblkAdminCliTest {

    @Test
    void listWithoutTheModuleSaysToLoadIt() {
        assumeFalse(Files.exists(Path.of("/dev/ublk-control")), "this kernel has ublk_drv loaded");
        CliRunner.Result r = CliRunner.run("ublk", "list");
        assertEquals(FailureReport.EXIT_FAILURE, r.exitCode(), r.err());
        assertEquals("nvmf4j: ublk list: open /dev/ublk-control failed: ENOENT (is the ublk_drv module loaded? "
                + "modprobe ublk_drv)\n", r.err());
    }

    @Test
    void delNeedsADeviceOrAll() {
        CliRunner.Result r = CliRunner.run("ublk", "del");
        assertEquals(2, r.exitCode(), r.err());
        assertTrue(r.err().startsWith("Error: Missing required argument (specify one of these): (-n=ID | -a)"),
                r.err());
        CliRunner.Result both = CliRunner.run("ublk", "del", "-n", "0", "-a");
        assertEquals(2, both.exitCode(), both.err());
        assertTrue(both.err().contains("mutually exclusive"), both.err());
    }
}
