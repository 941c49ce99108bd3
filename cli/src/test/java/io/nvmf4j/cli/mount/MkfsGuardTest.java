package io.nvmf4j.cli.mount;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.cli.demo.EmbeddedTarget;
import io.nvmf4j.cli.host.FailureReport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Re-running {@code mount --fs DIR --mkfs} on a namespace that already holds a file system must not format it
 * (mkfs.ext4 would ask first): the mount is refused, naming what is there, and the namespace is left as it was.
 * The refusal comes before FUSE and the loop device, so this runs without root; the mount is its own JVM, as a user's
 * would be.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MkfsGuardTest {

    static {
        // Mount records (none are expected) go to a private directory, as in MountEndToEndTest.
        System.setProperty("nvmf4j.run.dir", Path.of(System.getProperty("user.dir"), "target", "mount-test-run")
                .toString());
    }

    /** The first 4 KiB of an ext4 file system: the superblock at 1024 with its magic, features and label. */
    private static byte[] ext4Head() {
        byte[] b = new byte[4096];
        b[1024 + 0x38] = 0x53;
        b[1024 + 0x39] = (byte) 0xEF;
        b[1024 + 0x5C] = 0x04;                       // has_journal
        b[1024 + 0x60] = 0x42;                       // filetype, extents
        b[1024 + 0x61] = 0x02;                       // flex_bg
        byte[] label = "photos".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(label, 0, b, 1024 + 0x78, label.length);
        return b;
    }

    @Test
    void mkfsOverAnExistingExt4IsRefusedAndTheNamespaceKeepsIt(@TempDir Path dir) throws Exception {
        try (EmbeddedTarget target = EmbeddedTarget.start(8L << 20, 512, "softiwarp", 0, 1)) {
            String port = Integer.toString(target.address().getPort());
            String nqn = EmbeddedTarget.SUBSYSTEM.value();
            Path in = Files.write(dir.resolve("head.bin"), ext4Head());
            CliRunner.Result w = CliRunner.run("write", "--traddr", "127.0.0.1", "--trsvcid", port, "--nqn", nqn,
                    "--provider", "softiwarp", "-s", "0", "-c", "7", "-z", "4096", "-d", in.toString());
            assertEquals(0, w.exitCode(), w.err());

            Path mp = Files.createDirectory(dir.resolve("nvme"));
            Path fsDir = Files.createDirectory(dir.resolve("data"));
            try (Child mount = Child.start("mount", List.of("mount", "-a", "127.0.0.1", "-s", port, "-n", nqn,
                    "--provider", "softiwarp", mp.toString(), "--fs", fsDir.toString(), "--mkfs"))) {
                try {
                    assertEquals(FailureReport.EXIT_FAILURE, mount.awaitExit(60), mount.output());
                } finally {
                    MountLeaks.cleanUp(mp, fsDir);   // only if the guard failed and it went on to mount
                }
                List<String> lines = mount.output().lines().toList();
                assertEquals("nvmf4j: mount: namespace 1 of " + nqn + " already holds an ext4 file system (label "
                        + "\"photos\"); --mkfs would destroy it: leave out --mkfs to mount it as it is, or add "
                        + "--force to format it anyway", lines.getLast(), mount.output());
                assertFalse(mount.output().contains("\tat "), "no stack trace: " + mount.output());
            }
            assertFalse(MountLeaks.isMounted(mp), "nothing was mounted");

            Path out = dir.resolve("back.bin");
            CliRunner.Result r = CliRunner.run("read", "--traddr", "127.0.0.1", "--trsvcid", port, "--nqn", nqn,
                    "--provider", "softiwarp", "-s", "0", "-c", "7", "-z", "4096", "-d", out.toString());
            assertEquals(0, r.exitCode(), r.err());
            assertArrayEquals(ext4Head(), Files.readAllBytes(out), "the superblock is untouched");
        }
    }

    @Test
    void forceWithoutMkfsIsAUsageLine(@TempDir Path dir) {
        CliRunner.Result r = CliRunner.run("mount", "--force", "-a", "127.0.0.1", dir.toString());
        assertEquals(FailureReport.EXIT_USAGE, r.exitCode());
        assertEquals("nvmf4j: mount: --force only lets --mkfs format over an existing file system; give --mkfs\n",
                r.err());
        assertTrue(r.out().isEmpty());
    }
}
