package io.nvmf4j.cli.mount;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.ServerSocket;
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

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

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

    private static void umount(Child mount, Path mountpoint) throws Exception {
        CliRunner.Result r = CliRunner.run("umount", mountpoint.toString());
        assertEquals(0, r.exitCode(), r.err() + "\nmount output:\n" + mount.output());
        assertEquals(0, mount.awaitExit(120), mount.output());
        assertFalse(MountLeaks.isMounted(mountpoint), "FUSE still mounted on " + mountpoint);
    }

    private static Path backingFile(Path dir, long bytes) throws IOException {
        Path f = dir.resolve("backing.img");
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(bytes);
        }
        return f;
    }

    private static String fioVerify(Path file, String name, String offset, String size) throws Exception {
        return MountLeaks.check("fio", "--name=" + name, "--filename=" + file, "--offset=" + offset,
                "--size=" + size, "--rw=randwrite", "--bsrange=4k-128k", "--ioengine=libaio", "--iodepth=16",
                "--direct=1", "--verify=crc32c", "--do_verify=1", "--verify_fatal=1", "--randrepeat=1",
                "--verify_state_save=0");
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
                String fio = fioVerify(file, "tcp-digests", "0", "16m");
                assertTrue(fio.contains("err= 0"), fio);
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
                String fio = fioVerify(file, "after-reconnect", "8m", "8m");
                assertTrue(fio.contains("err= 0"), fio);
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

    /**
     * Two TCP paths, the second added to the running target through its management socket: fio's verified
     * writes go on through the second while the first is inaccessible (ANA over NVMe/TCP).
     */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void twoTcpPathsKeepFioVerifyingWhileOnePathIsInaccessible(@TempDir Path dir) throws Exception {
        Path backing = backingFile(dir, 32L << 20);
        Path mp = Files.createDirectory(dir.resolve("nvme"));
        Path socket = dir.resolve("rpc.sock");
        int port = freePort();
        int port2 = freePort();
        try (Child _ = serveTcp(backing, port, "--rpc-socket", socket.toString())) {
            // the management socket comes up after the first listener: wait for it, bounded
            for (int i = 0; i < 300 && !Files.exists(socket); i++) {
                Thread.sleep(100);
            }
            rpc(socket, "nvmf_subsystem_add_listener", "trtype=tcp", "traddr=127.0.0.1", "trsvcid=" + port2);
            Child m = mountTcp("127.0.0.1:" + port + ",127.0.0.1:" + port2, mp);
            try {
                Path file = mp.resolve("nvme0n1");
                rpc(socket, "nvmf_subsystem_listener_set_ana_state", "trtype=tcp", "traddr=127.0.0.1",
                        "trsvcid=" + port, "ana_state=inaccessible");
                String one = fioVerify(file, "inaccessible", "0", "8m");
                assertTrue(one.contains("err= 0"), one);
                rpc(socket, "nvmf_subsystem_listener_set_ana_state", "trtype=tcp", "traddr=127.0.0.1",
                        "trsvcid=" + port, "ana_state=optimized");
                String two = fioVerify(file, "optimized", "8m", "8m");
                assertTrue(two.contains("err= 0"), two);
                umount(m, mp);
                assertTrue(m.output().contains(", 0 I/O errors)"), m.output());
            } finally {
                m.close();
                MountLeaks.cleanUp(mp, null);
            }
        }
    }

    private static void rpc(Path socket, String method, String... params) {
        List<String> args = new ArrayList<>(List.of("rpc", "-s", socket.toString(), method, "--param",
                "nqn=" + NQN));
        for (String p : params) {
            args.add("--param");
            args.add(p);
        }
        CliRunner.Result r = CliRunner.run(args.toArray(String[]::new));
        assertEquals(0, r.exitCode(), method + ": " + r.err());
    }
}
