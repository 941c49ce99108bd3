package io.nvmf4j.cli.mount;

import static io.nvmf4j.cli.mount.MountScenarios.backingFile;
import static io.nvmf4j.cli.mount.MountScenarios.freePort;
import static io.nvmf4j.cli.mount.MountScenarios.umount;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nvmf4j mount} on this host, as root, with real FUSE, loop devices, mkfs/e2fsck and fio: the target
 * ({@code nvmf4j serve --file}) and the mount each run as their own process over softiwarp on 127.0.0.1; this JVM
 * only uses the files like any program would. Every test unmounts and detaches in finally.
 */
class MountEndToEndTest {

    static {
        // Mount records of these tests go to a private directory (the child JVMs get the same property).
        System.setProperty("nvmf4j.run.dir", Path.of(System.getProperty("user.dir"), "target", "mount-test-run")
                .toString());
    }

    private static final String NQN = "nqn.2026-12.io.nvmf4j:mount-test";

    private static Child serve(Path backing, int port) throws Exception {
        Child target = Child.start("serve", List.of("serve", "--file", backing.toString(), "--nqn", NQN,
                "--listen", "127.0.0.1:" + port, "--provider", "softiwarp"));
        target.awaitLine("listening on", 90);
        return target;
    }

    private static Child mount(int port, Path mountpoint, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("mount", "-a", "127.0.0.1", "-s", Integer.toString(port),
                "-n", NQN, "--provider", "softiwarp"));
        args.addAll(List.of(extra));
        args.add(mountpoint.toString());
        Child m = Child.start("mount", args);
        m.awaitLine("unmounts", 240);
        return m;
    }

    private static Map<String, String> writeTree(Path root, long seed) throws Exception {
        Random random = new Random(seed);
        Map<String, String> sums = new LinkedHashMap<>();
        for (int d = 0; d < 4; d++) {
            Path dir = Files.createDirectories(root.resolve("dir" + d).resolve("sub" + (d % 2)));
            for (int i = 0; i < 6; i++) {
                byte[] data = new byte[random.nextInt(300_000) + 1];
                random.nextBytes(data);
                Path f = dir.resolve("file" + i + ".bin");
                Files.write(f, data);
                sums.put(root.relativize(f).toString(), sha256(data));
            }
        }
        return sums;
    }

    private static Map<String, String> readTree(Path root) throws Exception {
        Map<String, String> sums = new LinkedHashMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path f : all.filter(Files::isRegularFile).sorted().toList()) {
                String rel = root.relativize(f).toString();
                if (!rel.startsWith("lost+found")) {
                    sums.put(rel, sha256(Files.readAllBytes(f)));
                }
            }
        }
        return sums;
    }

    private static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void ext4MadeByMkfsKeepsATreeOfFilesAcrossUnmountAndRemountAndFsckFindsItClean(@TempDir Path dir)
            throws Exception {
        Path backing = backingFile(dir, 64L << 20);
        Path mp = Files.createDirectory(dir.resolve("nvme"));
        Path fsDir = Files.createDirectory(dir.resolve("data"));
        int port = freePort();
        try (Child _ = serve(backing, port)) {
            Map<String, String> written;
            Child first = mount(port, mp, "--fs", fsDir.toString(), "--mkfs");
            try {
                assertTrue(first.output().contains("ext4 on /dev/loop"), first.output());
                assertTrue(MountLeaks.isMounted(fsDir), "ext4 not mounted on " + fsDir);
                written = writeTree(fsDir, 7);
                umount(first, mp);
                assertFalse(MountLeaks.isMounted(fsDir), "ext4 still mounted on " + fsDir);
                assertEquals(List.of(), MountLeaks.loopDevicesUnder(mp), "loop device left attached");
            } finally {
                first.close();
                MountLeaks.cleanUp(mp, fsDir);
            }

            Child second = mount(port, mp);
            try {
                // The file system through the remote file, as the next mount sees it: fsck -n changes nothing.
                String fsck = MountLeaks.check("e2fsck", "-fn", mp.resolve("nvme0n1").toString());
                assertTrue(fsck.contains(" files (") && !fsck.contains("UNEXPECTED"), fsck);
                umount(second, mp);
            } finally {
                second.close();
                MountLeaks.cleanUp(mp, null);
            }

            Child third = mount(port, mp, "--fs", fsDir.toString());
            try {
                assertEquals(written, readTree(fsDir));
                umount(third, mp);
            } finally {
                third.close();
                MountLeaks.cleanUp(mp, fsDir);
            }
        }
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void fioWritesAndVerifiesCrc32cOnTheExposedFileWithAlignedAndUnalignedBlocks(@TempDir Path dir)
            throws Exception {
        Path backing = backingFile(dir, 64L << 20);
        Path mp = Files.createDirectory(dir.resolve("nvme"));
        int port = freePort();
        try (Child _ = serve(backing, port)) {
            Child m = mount(port, mp);
            try {
                Path file = mp.resolve("nvme0n1");
                assertEquals(64L << 20, Files.size(file));
                // O_DIRECT, 16 in flight, 4 KiB..128 KiB blocks: the async path, in parallel.
                String direct = MountLeaks.check("fio", "--name=direct", "--filename=" + file, "--size=24m",
                        "--rw=randwrite", "--bsrange=4k-128k", "--ioengine=libaio", "--iodepth=16", "--direct=1",
                        "--verify=crc32c", "--do_verify=1", "--verify_fatal=1", "--randrepeat=1",
                        "--verify_state_save=0");
                assertTrue(direct.contains("err= 0"), direct);
                // Buffered, sizes not a multiple of the 512-byte block at odd offsets: read-modify-write.
                String odd = MountLeaks.check("fio", "--name=odd", "--filename=" + file, "--offset=32m",
                        "--size=4m", "--rw=write", "--bs=1000", "--ioengine=psync", "--verify=crc32c",
                        "--do_verify=1", "--verify_fatal=1", "--verify_state_save=0");
                assertTrue(odd.contains("err= 0"), odd);
                punchHoleAndZeroRangeZeroExactlyTheirBytes(file);
                umount(m, mp);
            } finally {
                m.close();
                MountLeaks.cleanUp(mp, null);
            }
        }
    }

    /** Two RDMA paths, one made inaccessible: {@link MountScenarios#twoPathsKeepFioVerifyingWhileOnePathIsInaccessible}. */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void twoPathsKeepFioVerifyingWhileOnePathIsInaccessible(@TempDir Path dir) throws Exception {
        MountScenarios.twoPathsKeepFioVerifyingWhileOnePathIsInaccessible(dir, NQN, "rdma",
                List.of("--provider", "softiwarp"));
    }

    /**
     * fallocate(1) with unaligned ranges: PUNCH_HOLE|KEEP_SIZE (Deallocate inside, read-modify-write at the edges)
     * and ZERO_RANGE (Write Zeroes) zero exactly the bytes asked for; the bytes around them keep their data.
     */
    private static void punchHoleAndZeroRangeZeroExactlyTheirBytes(Path file) throws Exception {
        long base = 40L << 20;
        byte[] data = new byte[64 * 1024];
        new Random(3).nextBytes(data);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(data), base);
            ch.force(true);
        }
        MountLeaks.check("fallocate", "--punch-hole", "--keep-size", "--offset", Long.toString(base + 1000),
                "--length", "10000", file.toString());
        MountLeaks.check("fallocate", "--zero-range", "--keep-size", "--offset", Long.toString(base + 20_000),
                "--length", "5000", file.toString());
        java.util.Arrays.fill(data, 1000, 11_000, (byte) 0);
        java.util.Arrays.fill(data, 20_000, 25_000, (byte) 0);
        byte[] back = new byte[data.length];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer bb = ByteBuffer.wrap(back);
            while (bb.hasRemaining() && ch.read(bb, base + bb.position()) > 0) {
                // until the 64 KiB are back
            }
        }
        assertArrayEquals(data, back);
        assertEquals(64L << 20, Files.size(file), "KEEP_SIZE: the size is the namespace's");
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void aKilledTargetFailsIoWithEioAfterCtrlLossTmoAndARemountSeesEveryFsyncedWrite(@TempDir Path dir)
            throws Exception {
        Path backing = backingFile(dir, 32L << 20);
        Path mp = Files.createDirectory(dir.resolve("nvme"));
        int port = freePort();
        byte[] synced = new byte[1 << 20];
        new Random(11).nextBytes(synced);
        int lossSeconds = 4;
        Child target = serve(backing, port);
        Child m = null;
        try {
            m = mount(port, mp, "--ctrl-loss-tmo", Integer.toString(lossSeconds), "--reconnect-delay", "1");
            Path file = mp.resolve("nvme0n1");
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
                ch.write(ByteBuffer.wrap(synced), 0);
                ch.force(true);
                // Keep writing (never fsync'ed) while the target dies.
                AtomicReference<IOException> failure = new AtomicReference<>();
                long[] failedAfterKillNanos = {0};
                long[] killedAt = {0};
                Thread writer = Thread.ofPlatform().start(() -> {
                    byte[] junk = new byte[64 * 1024];
                    long off = 8L << 20;
                    try {
                        while (true) {
                            ch.write(ByteBuffer.wrap(junk), off);
                            off = off + junk.length >= (16L << 20) ? 8L << 20 : off + junk.length;
                        }
                    } catch (IOException e) {
                        failedAfterKillNanos[0] = System.nanoTime();
                        failure.set(e);
                    }
                });
                Thread.sleep(500);
                killedAt[0] = System.nanoTime();
                target.kill9();
                writer.join(TimeUnit.SECONDS.toMillis(lossSeconds + 90));
                assertFalse(writer.isAlive(), "a write still hangs long after ctrl-loss-tmo");
                assertTrue(failure.get() != null && String.valueOf(failure.get().getMessage())
                        .contains("Input/output error"), "expected EIO, got " + failure.get());
                double waited = (failedAfterKillNanos[0] - killedAt[0]) / 1e9;
                assertTrue(waited >= lossSeconds - 1, "failed after " + waited + " s, before ctrl-loss-tmo");
                IOException readFailure = assertThrows(IOException.class, () -> ch.read(ByteBuffer.allocate(512), 0));
                assertTrue(String.valueOf(readFailure.getMessage()).contains("Input/output error"),
                        readFailure.toString());
            }
            CliRunner.Result r = CliRunner.run("umount", mp.toString());
            assertEquals(0, r.exitCode(), r.err());
            // The unmount itself is clean; the flush it owes the lost controller is not, and says so.
            assertEquals(1, m.awaitExit(120), m.output());
            assertTrue(m.output().contains("flush of nvme0n1 failed"), m.output());
            assertFalse(MountLeaks.isMounted(mp));
        } finally {
            if (m != null) {
                m.close();
            }
            target.close();
            MountLeaks.cleanUp(mp, null);
        }

        try (Child _ = serve(backing, port)) {
            Child again = mount(port, mp);
            try {
                byte[] back = new byte[synced.length];
                try (FileChannel ch = FileChannel.open(mp.resolve("nvme0n1"), StandardOpenOption.READ)) {
                    ByteBuffer bb = ByteBuffer.wrap(back);
                    while (bb.hasRemaining() && ch.read(bb, bb.position()) > 0) {
                        // read the whole fsync'ed megabyte
                    }
                }
                assertArrayEquals(synced, back, "fsync'ed data lost across the target's kill -9");
                umount(again, mp);
            } finally {
                again.close();
                MountLeaks.cleanUp(mp, null);
            }
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void daemonReturnsOnceReadyAndUmountClearsTheMountOfAProcessKilledWithSigkill(@TempDir Path dir)
            throws Exception {
        Path backing = backingFile(dir, 16L << 20);
        Path mp = Files.createDirectory(dir.resolve("nvme"));
        int port = freePort();
        ProcessHandle server = null;
        try (Child _ = serve(backing, port)) {
            Child parent = Child.start("mount --daemon", List.of("mount", "-a", "127.0.0.1", "-s",
                    Integer.toString(port), "-n", NQN, "--provider", "softiwarp", "--daemon", mp.toString()));
            assertEquals(0, parent.awaitExit(240), parent.output());
            assertTrue(parent.output().contains("nvme0n1 (16 MiB, 512-byte blocks)"), parent.output());
            long pid = MountRecord.read(mp).orElseThrow().pid();
            server = ProcessHandle.of(pid).orElseThrow();
            assertTrue(parent.output().contains("[pid " + pid + ", log "), parent.output());
            assertEquals(16L << 20, Files.size(mp.resolve("nvme0n1")));

            server.destroyForcibly();
            server.onExit().get(30, TimeUnit.SECONDS);
            assertTrue(MountLeaks.isMounted(mp), "the kernel keeps a dead FUSE server's mount");
            CliRunner.Result r = CliRunner.run("umount", mp.toString());
            assertEquals(0, r.exitCode(), r.err());
            assertEquals("nvmf4j: unmounted " + mp + " (its nvmf4j process was gone)\n", r.out());
            assertFalse(MountLeaks.isMounted(mp));
        } finally {
            if (server != null) {
                server.destroyForcibly();
            }
            MountLeaks.cleanUp(mp, null);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void mountOnAMissingDirectoryIsOneLineAndAUsageError(@TempDir Path dir) {
        CliRunner.Result r = CliRunner.run("mount", "-s", "1", dir.resolve("absent").toString());
        assertEquals(2, r.exitCode());
        assertEquals("nvmf4j: mount: " + dir.resolve("absent") + " is not a directory\n", r.err());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void umountOfADirectoryNothingIsMountedOnIsOneLine(@TempDir Path dir) {
        CliRunner.Result r = CliRunner.run("umount", dir.toString());
        assertEquals(1, r.exitCode());
        assertEquals("nvmf4j: umount: " + dir + " is not an nvmf4j mount\n", r.err());
    }
}
