package io.nvmf4j.cli.mount;

import static io.nvmf4j.cli.mount.MountScenarios.backingFile;
import static io.nvmf4j.cli.mount.MountScenarios.fioVerify;
import static io.nvmf4j.cli.mount.MountScenarios.freePort;
import static io.nvmf4j.cli.mount.MountScenarios.umount;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nvmf4j mount -t tcp} against {@code nvmf4j serve -t tcp}, each its own process on 127.0.0.1, with real
 * FUSE and fio: the mount's data, reconnect and multipath/ANA behaviour over NVMe/TCP, as {@link MountEndToEndTest}
 * checks them over softiwarp.
 */
class MountOverTcpTest {

    static {
        // Mount records of these tests go to a private directory (the child JVMs get the same property).
        System.setProperty("nvmf4j.run.dir", Path.of(System.getProperty("user.dir"), "target", "mount-test-run")
                .toString());
    }

    private static final String NQN = "nqn.2026-12.io.nvmf4j:mount-tcp-test";

    private static Child serveTcp(Path backing, int port, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("serve", "-t", "tcp", "--file", backing.toString(), "--nqn",
                NQN, "--listen", "127.0.0.1:" + port));
        args.addAll(List.of(extra));
        Child target = Child.start("serve", args);
        target.awaitLine("listening on", 90);
        return target;
    }

    private static Child mountTcp(String addresses, Path mountpoint, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("mount", "-t", "tcp", "-a", addresses, "-n", NQN));
        args.addAll(List.of(extra));
        args.add(mountpoint.toString());
        Child m = Child.start("mount", args);
        m.awaitLine("unmounts", 240);
        return m;
    }

    private static byte[] readAt(Path file, long offset, int length) throws IOException {
        byte[] back = new byte[length];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer bb = ByteBuffer.wrap(back);
            while (bb.hasRemaining() && ch.read(bb, offset + bb.position()) > 0) {
                // until the whole range is in
            }
        }
        return back;
    }

    /**
     * With header and data digests: fio's verified writes of 4-128 KiB (in-capsule and R2T/H2CData writes, C2HData
     * reads), and a megabyte written through the mount that the target's backing file holds after the unmount.
     */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void writesOverTcpWithDigestsVerifyAndReachTheTargetsBackingFile(@TempDir Path dir) throws Exception {
        Path backing = backingFile(dir, 32L << 20);
        Path mp = Files.createDirectory(dir.resolve("nvme"));
        int port = freePort();
        byte[] data = new byte[1 << 20];
        new Random(32).nextBytes(data);
        try (Child _ = serveTcp(backing, port)) {
            Child m = mountTcp("127.0.0.1:" + port, mp, "--hdr-digest", "--data-digest");
            try {
                Path file = mp.resolve("nvme0n1");
                assertEquals(32L << 20, Files.size(file));
                fioVerify(file, "tcp-digests", "0", "16m");
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    ch.write(ByteBuffer.wrap(data), 20L << 20);
                    ch.force(true);
                }
                umount(m, mp);
                assertTrue(m.output().contains(", 0 I/O errors)"), m.output());
            } finally {
                m.close();
                MountLeaks.cleanUp(mp, null);
            }
        }
        assertArrayEquals(data, readAt(backing, 20L << 20, data.length), "the backing file lacks the megabyte");
    }

    /**
     * The target is killed (-9) under a writer and started again on the same port within ctrl-loss-tmo: the
     * controller reconnects over TCP, the write that waited completes without an error, and every fsync'ed byte
     * is there, as nvme-tcp's reconnect work gives a Linux host.
     */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void aTargetRestartedWithinCtrlLossTmoLetsTheWaitingWriteComplete(@TempDir Path dir) throws Exception {
        Path backing = backingFile(dir, 32L << 20);
        Path mp = Files.createDirectory(dir.resolve("nvme"));
        int port = freePort();
        byte[] before = new byte[1 << 20];
        byte[] across = new byte[1 << 20];
        new Random(7).nextBytes(before);
        new Random(8).nextBytes(across);
        Child target = serveTcp(backing, port);
        Child m = null;
        try {
            m = mountTcp("127.0.0.1:" + port, mp, "--ctrl-loss-tmo", "120", "--reconnect-delay", "1");
            Path file = mp.resolve("nvme0n1");
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
                ch.write(ByteBuffer.wrap(before), 0);
                ch.force(true);
                target.kill9();
                // Written while no target listens: it waits for the reconnect, it does not fail.
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread writer = Thread.ofPlatform().start(() -> {
                    try {
                        ch.write(ByteBuffer.wrap(across), 4L << 20);
                        ch.force(true);
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                });
                target.close();
                target = serveTcp(backing, port);
                writer.join(TimeUnit.SECONDS.toMillis(180));
                assertFalse(writer.isAlive(), "the write still waits long after the target is back");
                assertNull(failure.get(), "the write across the restart failed");
                fioVerify(file, "after-reconnect", "8m", "8m");
            }
            assertArrayEquals(before, readAt(file, 0, before.length), "fsync'ed data lost across the restart");
            assertArrayEquals(across, readAt(file, 4L << 20, across.length), "the waiting write was lost");
            umount(m, mp);
            assertTrue(m.output().contains("connection lost"), "the kill went unnoticed: " + m.output());
        } finally {
            if (m != null) {
                m.close();
            }
            target.close();
            MountLeaks.cleanUp(mp, null);
        }
    }

    /** Two TCP paths, one made inaccessible (ANA over NVMe/TCP): the scenario {@link MountEndToEndTest} runs over RDMA. */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void twoTcpPathsKeepFioVerifyingWhileOnePathIsInaccessible(@TempDir Path dir) throws Exception {
        MountScenarios.twoPathsKeepFioVerifyingWhileOnePathIsInaccessible(dir, NQN, "tcp", List.of("-t", "tcp"));
    }
}
