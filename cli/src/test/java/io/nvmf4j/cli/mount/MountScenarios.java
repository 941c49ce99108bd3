package io.nvmf4j.cli.mount;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the end-to-end mount tests share, over either transport: ports, backing files, {@code nvmf4j umount}, fio's
 * verified writes, management-socket calls, and the two-path ANA scenario.
 */
final class MountScenarios {

    private MountScenarios() {
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** A sparse file of {@code bytes} for {@code nvmf4j serve --file}. */
    static Path backingFile(Path dir, long bytes) throws IOException {
        Path f = dir.resolve("backing.img");
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(bytes);
        }
        return f;
    }

    /** {@code nvmf4j umount MP} in this JVM: SIGTERM to the mount process, which must then exit 0. */
    static void umount(Child mount, Path mountpoint) throws Exception {
        CliRunner.Result r = CliRunner.run("umount", mountpoint.toString());
        assertEquals(0, r.exitCode(), r.err() + "\nmount output:\n" + mount.output());
        assertEquals(0, mount.awaitExit(120), mount.output());
        assertTrue(mount.output().contains("nvmf4j: unmounted " + mountpoint), mount.output());
        assertFalse(MountLeaks.isMounted(mountpoint), "FUSE still mounted on " + mountpoint);
    }

    /** fio's random writes of 4-128 KiB, 16 in flight, O_DIRECT, each block verified by crc32c: its output. */
    static String fioVerify(Path file, String name, String offset, String size) throws Exception {
        String out = MountLeaks.check("fio", "--name=" + name, "--filename=" + file, "--offset=" + offset,
                "--size=" + size, "--rw=randwrite", "--bsrange=4k-128k", "--ioengine=libaio", "--iodepth=16",
                "--direct=1", "--verify=crc32c", "--do_verify=1", "--verify_fatal=1", "--randrepeat=1",
                "--verify_state_save=0");
        assertTrue(out.contains("err= 0"), out);
        return out;
    }

    /** {@code nvmf4j rpc -s SOCKET METHOD --param nqn=NQN --param ...}, which must succeed. */
    static void rpc(Path socket, String nqn, String method, String... params) {
        List<String> args = new ArrayList<>(List.of("rpc", "-s", socket.toString(), method, "--param",
                "nqn=" + nqn));
        for (String p : params) {
            args.add("--param");
            args.add(p);
        }
        CliRunner.Result r = CliRunner.run(args.toArray(String[]::new));
        assertEquals(0, r.exitCode(), method + ": " + r.err());
    }

    /**
     * Two paths ({@code -a A:P1,A:P2}; the second port added to the running target through its management socket,
     * of {@code trtype}): fio's verified writes go on through the second path while the first is inaccessible, and
     * through either once it is optimized again. {@code transport}: the options serve and mount take for it.
     */
    static void twoPathsKeepFioVerifyingWhileOnePathIsInaccessible(Path dir, String nqn, String trtype,
            List<String> transport) throws Exception {
        Path backing = backingFile(dir, 32L << 20);
        Path mp = Files.createDirectory(dir.resolve("nvme"));
        Path socket = dir.resolve("rpc.sock");
        int port = freePort();
        int port2 = freePort();
        List<String> serve = new ArrayList<>(List.of("serve", "--file", backing.toString(), "--nqn", nqn,
                "--listen", "127.0.0.1:" + port, "--rpc-socket", socket.toString()));
        serve.addAll(transport);
        try (Child target = Child.start("serve", serve)) {
            target.awaitLine("listening on", 90);
            // the management socket comes up after the first listener: wait for it, bounded
            for (int i = 0; i < 300 && !Files.exists(socket); i++) {
                Thread.sleep(100);
            }
            rpc(socket, nqn, "nvmf_subsystem_add_listener", "trtype=" + trtype, "traddr=127.0.0.1",
                    "trsvcid=" + port2);
            List<String> mount = new ArrayList<>(List.of("mount", "-a", "127.0.0.1:" + port + ",127.0.0.1:" + port2,
                    "-n", nqn));
            mount.addAll(transport);
            mount.add(mp.toString());
            Child m = Child.start("mount", mount);
            m.awaitLine("unmounts", 240);
            try {
                Path file = mp.resolve("nvme0n1");
                assertEquals(32L << 20, Files.size(file));
                rpc(socket, nqn, "nvmf_subsystem_listener_set_ana_state", "trtype=" + trtype, "traddr=127.0.0.1",
                        "trsvcid=" + port, "ana_state=inaccessible");
                fioVerify(file, "inaccessible", "0", "8m");
                rpc(socket, nqn, "nvmf_subsystem_listener_set_ana_state", "trtype=" + trtype, "traddr=127.0.0.1",
                        "trsvcid=" + port, "ana_state=optimized");
                fioVerify(file, "optimized", "8m", "8m");
                umount(m, mp);
                assertTrue(m.output().contains(", 0 I/O errors)"), m.output());
            } finally {
                m.close();
                MountLeaks.cleanUp(mp, null);
            }
        }
    }
}
