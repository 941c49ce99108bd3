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

/**
 * mount refuses a mount point with files unless -o nonempty, and --ublk with what only a FUSE mount takes (checked
 * before anything connects).
 */
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

    @Test
    void withoutMountpointOrUblkDriverTheUsageSaysWhichToGive() {
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.exists(Path.of("/dev/ublk-control")),
                "this kernel has ublk_drv loaded: no MOUNTPOINT then means block devices");
        CliRunner.Result r = CliRunner.run("mount", "-a", "127.0.0.1", "-s", "9");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode(), r.err());
        assertEquals("nvmf4j: mount: give a MOUNTPOINT for the namespace files (FUSE); block devices (--ublk) need "
                + "the ublk_drv module, which this kernel has not loaded (modprobe ublk_drv)\n", r.err());
    }

    @Test
    void ublkTakesNoMountpointNorWhatOnlyTheFuseMountTakes(@TempDir Path dir) {
        String expected = "nvmf4j: mount: --ublk makes block devices and takes no MOUNTPOINT or -o: "
                + "--fs DIR mounts the first one's file system\n";
        CliRunner.Result withDir = CliRunner.run("mount", "--ublk", dir.toString());
        assertEquals(FailureReport.EXIT_USAGE, withDir.exitCode(), withDir.err());
        assertEquals(expected, withDir.err());
        CliRunner.Result withOption = CliRunner.run("mount", "--ublk", "-o", "nonempty");
        assertEquals(expected, withOption.err());
    }

    @Test
    void recoverIsForUblkDevicesAndNeverFormats(@TempDir Path dir) {
        CliRunner.Result withoutUblk = CliRunner.run("mount", "--recover", "0");
        assertEquals(FailureReport.EXIT_USAGE, withoutUblk.exitCode(), withoutUblk.err());
        assertEquals("nvmf4j: mount: --recover serves a ublk device again; give --ublk\n", withoutUblk.err());
        CliRunner.Result withMkfs = CliRunner.run("mount", "--ublk", "--recover", "0", "--fs", dir.toString(),
                "--mkfs");
        assertEquals(FailureReport.EXIT_USAGE, withMkfs.exitCode(), withMkfs.err());
        assertEquals("nvmf4j: mount: --recover serves a device whose file system may be in use; it takes no --mkfs "
                + "(--fs DIR takes over the file system mounted on DIR)\n", withMkfs.err());
    }

    @Test
    void mkfsWithUblkStillNeedsFs() {
        CliRunner.Result r = CliRunner.run("mount", "--ublk", "--mkfs");
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode(), r.err());
        assertEquals("nvmf4j: mount: --mkfs formats the file system of --fs DIR; give --fs\n", r.err());
    }

    @Test
    void ublkWithoutTheKernelModuleSaysToLoadIt() {
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.exists(Path.of("/dev/ublk-control")),
                "this kernel has ublk_drv loaded");
        CliRunner.Result r = CliRunner.run("mount", "--ublk", "-a", "127.0.0.1", "-s", "9", "-n",
                "nqn.2026-12.io.nvmf4j:absent");
        assertEquals(FailureReport.EXIT_FAILURE, r.exitCode(), r.err());
        assertEquals("nvmf4j: mount: open /dev/ublk-control failed: ENOENT (is the ublk_drv module loaded? "
                + "modprobe ublk_drv)\n", r.err());
    }
}
