package io.nvmf4j.cli.mount;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.cli.host.FailureReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nvmf4j umount} of what {@code mount --ublk} made, by its --fs directory or a device node: the serving
 * process is asked to stop (SIGTERM) and waited for; a device whose process is gone is left to the user's
 * recovery or {@code ublk del}, never removed by umount. (This kernel has no ublk_drv: the processes here only
 * stand in for the mount's; the lab's check 49 stops a real one this way.)
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UmountUblkTest {

    static {
        System.setProperty("nvmf4j.run.dir", Path.of(System.getProperty("user.dir"), "target", "mount-test-run")
                .toString());
    }

    @Test
    void umountOfTheFsDirectoryStopsTheProcessServingTheDevices(@TempDir Path fsDir) throws Exception {
        Process server = new ProcessBuilder("sleep", "600").start();
        try {
            new MountRecord(server.pid(), fsDir, fsDir.toString(), "/dev/ublkb3").write();
            CliRunner.Result r = CliRunner.run("umount", fsDir.toString());
            assertEquals(0, r.exitCode(), r.err());
            assertEquals("nvmf4j: unmounted " + fsDir + " (pid " + server.pid() + " stopped)\n", r.out());
            assertTrue(server.waitFor(Duration.ofSeconds(30).toMillis(), TimeUnit.MILLISECONDS),
                    "the serving process still runs");
        } finally {
            server.destroyForcibly();
            MountRecord.delete(fsDir);
        }
    }

    @Test
    void umountOfADeviceWhoseProcessDiedPointsToRecoveryAndRemovesNothing() throws Exception {
        Path device = Path.of("/dev/ublkb7");
        Process gone = new ProcessBuilder("true").start();
        assertTrue(gone.waitFor(30, TimeUnit.SECONDS));
        new MountRecord(gone.pid(), device, null, device.toString()).write();
        try {
            CliRunner.Result r = CliRunner.run("umount", device.toString());
            assertEquals(FailureReport.EXIT_FAILURE, r.exitCode(), r.err());
            assertEquals("nvmf4j: umount: the nvmf4j process serving /dev/ublkb7 is gone; serve it again with "
                    + "nvmf4j mount --ublk --recover 7 (same flags), or remove it with nvmf4j ublk del -n 7\n",
                    r.err());
            assertFalse(Files.exists(MountRecord.fileFor(device)), "the stale record stays");
        } finally {
            MountRecord.delete(device);
        }
    }
}
