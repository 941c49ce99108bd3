package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.protocol.Nqn;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A target process killed with SIGKILL while a host keeps 32 writes in flight loses no write it acknowledged: every
 * 4 KiB write the host saw complete is in the file, whole, when the process is gone (the completion goes out only
 * after the backend's own completion, io_uring or worker). Each trial writes distinct chunks in random order with
 * a pattern that names the chunk and the trial, kills {@code nvmf4j serve --file} at a random moment, and reads the
 * file back directly. {@code -Dnvmf4j.crashTrials=N} runs more trials (bench/crash.sh runs 100).
 */
class KillNineDurabilityTest {

    private static final String NQN = "nqn.2026-12.io.nvmf4j:crash";
    private static final int CHUNK = 4096;
    private static final int CHUNKS = 8192; // 32 MiB
    private static final int DEPTH = 32;

    @TempDir
    Path dir;

    @Test
    void noAcknowledgedWriteIsLostOrTornWhenTheTargetIsKilledUnderQueueDepth32() throws Exception {
        int trials = Integer.getInteger("nvmf4j.crashTrials", 3);
        Random random = new Random();
        long acknowledgedTotal = 0;
        for (int trial = 1; trial <= trials; trial++) {
            acknowledgedTotal += trial(trial, 150 + random.nextInt(600), random.nextLong());
        }
        System.out.printf("kill -9 durability: %d trials, %,d acknowledged writes checked, 0 lost or torn%n",
                trials, acknowledgedTotal);
    }

    /** One trial: returns how many acknowledged writes it checked (all of them present and whole). */
    private long trial(int trial, int killAfterMillis, long seed) throws Exception {
        Path img = dir.resolve("crash-" + trial + ".img");
        try (FileChannel f = FileChannel.open(img, java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            f.write(ByteBuffer.wrap(new byte[1]), (long) CHUNKS * CHUNK - 1);
        }
        int port = TestDaemons.freePort();
        Path log = dir.resolve("serve-" + trial + ".log");
        Process serve = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "io.nvmf4j.cli.Nvmf4j", "serve", "--file", img.toString(), "--nqn", NQN,
                "--listen", "127.0.0.1:" + port, "--provider", "softiwarp", "--poll-groups", "1", "--no-rpc"))
                .redirectError(log.toFile()).start();
        List<Integer> acknowledged = Collections.synchronizedList(new ArrayList<>());
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(serve.getInputStream(),
                    StandardCharsets.UTF_8));
            String line = out.readLine();
            assertTrue(line != null && line.contains("listening on"), line + "\n" + Files.readString(log));
            ConnectOptions options = ConnectOptions.builder(new InetSocketAddress("127.0.0.1", port), Nqn.parse(NQN))
                    .host(HostIdentity.generate()).provider("softiwarp").ioQueues(1).queueSize(64)
                    .keepAliveTimeout(Duration.ZERO).ctrlLossTimeout(Duration.ZERO)
                    .reconnectDelay(Duration.ofMillis(100)).connectTimeout(Duration.ofSeconds(1))
                    .commandTimeout(Duration.ofSeconds(2)).build();
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < CHUNKS; i++) {
                order.add(i);
            }
            Collections.shuffle(order, new Random(seed));
            try (NvmeController c = NvmeController.connect(options); Arena arena = Arena.ofShared()) {
                Namespace ns = c.firstNamespace();
                int blocks = (int) (CHUNK / ns.blockSize());
                Semaphore room = new Semaphore(DEPTH);
                ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
                long killAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(killAfterMillis);
                boolean killed = false;
                for (int chunk : order) {
                    if (!killed && System.nanoTime() - killAt >= 0) {
                        serve.destroyForcibly(); // SIGKILL: no shutdown hook, no flush, nothing graceful
                        killed = true;
                    }
                    if (!room.tryAcquire(10, TimeUnit.SECONDS) || !failures.isEmpty()) {
                        break; // the target is gone: what is in flight fails
                    }
                    MemorySegment data = arena.allocate(CHUNK, 4096);
                    fill(data, trial, chunk);
                    ns.writeAsync((long) chunk * blocks, blocks, data).whenComplete((v, e) -> {
                        if (e == null) {
                            acknowledged.add(chunk);
                        } else {
                            failures.add(e);
                        }
                        room.release();
                    });
                }
                if (!killed) {
                    serve.destroyForcibly();
                }
                assertTrue(serve.waitFor(20, TimeUnit.SECONDS), "the killed target did not go away");
                // writes still in flight wait for a reconnect that cannot come; the check needs only the acknowledged
                // ones, and every acknowledgement left the target before it died (it has exited by now)
                room.tryAcquire(DEPTH, 1, TimeUnit.SECONDS);
            }
        } finally {
            serve.destroyForcibly();
            serve.waitFor(20, TimeUnit.SECONDS);
        }
        assertTrue(!acknowledged.isEmpty(), "no write was acknowledged before the kill: " + Files.readString(log));
        byte[] expected = new byte[CHUNK];
        ByteBuffer onDisk = ByteBuffer.allocate(CHUNK);
        List<Integer> acks;
        synchronized (acknowledged) {
            acks = new ArrayList<>(acknowledged);
        }
        try (FileChannel f = FileChannel.open(img)) {
            for (int chunk : acks) {
                onDisk.clear();
                f.read(onDisk, (long) chunk * CHUNK);
                MemorySegment want = MemorySegment.ofArray(expected);
                fill(want, trial, chunk);
                assertEquals(-1L, MemorySegment.ofArray(onDisk.array()).mismatch(want),
                        "trial " + trial + ": acknowledged chunk " + chunk + " is not in the file whole");
            }
        }
        return acks.size();
    }

    /** The pattern of one chunk: each long names the trial, the chunk and its own position. */
    private static void fill(MemorySegment s, int trial, int chunk) {
        for (int i = 0; i < CHUNK / 8; i++) {
            long v = ((long) trial << 48) ^ ((long) chunk << 16) ^ i ^ 0x5DEECE66DL * (i + 1);
            s.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 8L * i, v);
        }
    }
}
