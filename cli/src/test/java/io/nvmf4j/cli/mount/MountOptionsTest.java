package io.nvmf4j.cli.mount;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.cli.host.FailureReport;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** mount refuses a mount point with files unless -o nonempty (checked before anything connects). */
class MountOptionsTest {

    @Test
    void aNonEmptyMountPointIsRefusedWithoutNonempty(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("precious.txt"), "keep me visible");
        CliRunner.Result r = CliRunner.run("mount", "-a", "127.0.0.1", "-s", "9", dir.toString());
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode(), r.err());
        assertEquals("nvmf4j: mount: " + dir + " is not empty; give -o nonempty to mount over its files\n", r.err());
    }

    @Test
    void nonemptyLetsTheMountGoOnToConnect(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("precious.txt"), "x");
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        CliRunner.Result r = CliRunner.run("mount", "-o", "nonempty", "-a", "127.0.0.1", "-s",
                Integer.toString(closed), "-n", "nqn.2026-12.io.nvmf4j:absent", "--provider", "softiwarp",
                "--connect-timeout", "2", dir.toString());
        assertEquals(FailureReport.EXIT_FAILURE, r.exitCode(), r.err());
        assertTrue(r.err().startsWith("nvmf4j: cannot connect to 127.0.0.1:" + closed), r.err());
    }

    @Test
    void anUnknownMountOptionIsAUsageLine(@TempDir Path dir) {
        CliRunner.Result r = CliRunner.run("mount", "-o", "noatime", dir.toString());
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertEquals("nvmf4j: mount: unknown mount option 'noatime' (nvmf4j takes -o nonempty)\n", r.err());
    }
}
