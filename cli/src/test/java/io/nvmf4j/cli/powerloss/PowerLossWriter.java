package io.nvmf4j.cli.powerloss;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.protocol.Nqn;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * The host side of the power-loss check (interop check 38): writes self-describing 4 KiB blocks through the nvmf4j
 * initiator, a mix of FUA and plain writes at a queue depth above one, and records what the target acknowledged,
 * with FUA, before which completed Flush, so that a replay of the target device's dm-log-writes log can tell at every
 * point whether a write the host was promised is there and whole (interop/checks/log-writes-replay.py).
 *
 * <p>Each epoch: {@code --writes} writes to random blocks (never two in flight to the same block, so a later
 * sequence number on a block is a later write), {@code --fua} percent of them with FUA, never to a block that has a
 * plain write since the last Flush (dm-log-writes logs a plain write only at the next flush, behind a FUA write that
 * completed after it: the log would show the older data landing on the newer, which no device does). Then it waits
 * for all of them; in odd epochs asks for a mark {@code pre-N} (every FUA write acknowledged so far must be in the log
 * before it); issues a Flush, waits for it and asks for a mark {@code post-N} (every write acknowledged before the
 * Flush must be in the log before the Flush's own entry, the last flush before {@code post-N}). Even epochs send the
 * Flush right after the last acknowledgement, without the round trip of a mark, so that a write the target
 * acknowledged early has little time to reach the device before the Flush.
 *
 * <p>A mark request is a line {@code MARK name} on standard output; the writer goes on when it reads a line from
 * standard input (the check script answers once the guest has put the mark in the log).
 *
 * <p>The record ({@code --record}) has one line per event, in the order the host saw them: {@code W seq block fua}
 * for an acknowledged write, {@code M name kind} for a mark (kind {@code P} before a Flush, {@code F} after it).
 *
 * <p>Block layout (little-endian longs): magic, block number, sequence number, flags (bit 0: FUA), run nonce, then
 * a filler derived from all of them, and the CRC-32 of the first 4088 bytes in the last 8.
 *
 * <p>Runs from the CLI jar without a build step: {@code java -cp cli/target/nvmf4j.jar PowerLossWriter.java ...}.
 */
public final class PowerLossWriter {

    public static final int BLOCK = 4096;
    public static final long MAGIC = 0x314B34474F4C5050L; // "PPLOG4K1"
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** What one run needs; defaults fit the lab's emulated guest (about 2,000 writes). */
    public record Settings(InetSocketAddress address, String nqn, Path record, int epochs, int writesPerEpoch,
            int depth, int fuaPercent, long seed, String provider, Duration commandTimeout) {
    }

    /** Where a mark request goes and how the writer learns the mark is in the log. */
    @FunctionalInterface
    public interface Marker {
        void mark(String name) throws IOException;
    }

    /** What a run did, for its summary line and the unit test. */
    public record Summary(long writes, long fuaWrites, int marks, long blocks, long nonce) {
    }

    private PowerLossWriter() {
    }

    public static void main(String[] args) {
        int status = 0;
        try {
            Settings s = parse(args);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            PrintStream out = System.out;
            long t0 = System.nanoTime();
            Summary sum = run(s, name -> {
                out.println("MARK " + name);
                out.flush();
                if (in.readLine() == null) {
                    throw new IOException("standard input ended while waiting for mark " + name);
                }
            });
            out.printf("powerloss writer: %d writes (%d FUA) over %d blocks, %d marks, nonce %016x, %.1f s%n",
                    sum.writes(), sum.fuaWrites(), sum.blocks(), sum.marks(), sum.nonce(),
                    (System.nanoTime() - t0) / 1e9);
        } catch (Exception e) {
            System.err.println("powerloss writer: " + e);
            e.printStackTrace();
            status = 1;
        }
        System.exit(status); // the initiator's completion threads are not all daemons
    }

    static Settings parse(String[] args) {
        String traddr = null;
        String nqn = null;
        Path record = null;
        int epochs = 8;
        int writes = 250;
        int depth = 16;
        int fua = 25;
        long seed = System.nanoTime();
        String provider = "softiwarp";
        int timeout = 60;
        if (args.length % 2 != 0) {
            throw new IllegalArgumentException(args[args.length - 1] + " needs a value");
        }
        for (int i = 0; i < args.length; i += 2) {
            String a = args[i];
            String v = args[i + 1];
            switch (a) {
                case "--traddr" -> traddr = v;
                case "--nqn" -> nqn = v;
                case "--record" -> record = Path.of(v);
                case "--epochs" -> epochs = Integer.parseInt(v);
                case "--writes" -> writes = Integer.parseInt(v);
                case "--qd" -> depth = Integer.parseInt(v);
                case "--fua" -> fua = Integer.parseInt(v);
                case "--seed" -> seed = Long.parseLong(v);
                case "--provider" -> provider = v;
                case "--command-timeout" -> timeout = Integer.parseInt(v);
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (traddr == null || nqn == null || record == null) {
            throw new IllegalArgumentException("usage: PowerLossWriter --traddr HOST:PORT --nqn NQN --record FILE"
                    + " [--epochs 8] [--writes 250] [--qd 16] [--fua 25] [--seed N] [--provider softiwarp]"
                    + " [--command-timeout 60]");
        }
        int colon = traddr.lastIndexOf(':');
        InetSocketAddress address = new InetSocketAddress(traddr.substring(0, colon),
                Integer.parseInt(traddr.substring(colon + 1)));
        return new Settings(address, nqn, record, epochs, writes, depth, fua, seed, provider,
                Duration.ofSeconds(timeout));
    }

    public static Summary run(Settings s, Marker marker) throws Exception {
        ConnectOptions options = ConnectOptions.builder(s.address(), Nqn.parse(s.nqn()))
                .host(HostIdentity.generate()).provider(s.provider()).ioQueues(1).queueSize(Math.max(32, 2 * s.depth()))
                .keepAliveTimeout(Duration.ZERO).ctrlLossTimeout(Duration.ZERO)
                .connectTimeout(Duration.ofSeconds(60)).commandTimeout(s.commandTimeout()).build();
        SplittableRandom random = new SplittableRandom(s.seed());
        long nonce = random.nextLong();
        try (NvmeController c = NvmeController.connect(options); Arena arena = Arena.ofShared();
                PrintWriter rec = new PrintWriter(Files.newBufferedWriter(s.record(), StandardCharsets.UTF_8))) {
            Namespace ns = c.firstNamespace();
            if (ns.blockSize() != BLOCK) {
                throw new IllegalStateException("the namespace has " + ns.blockSize() + "-byte blocks; the check"
                        + " needs " + BLOCK + " (serve --block-size 4096): one block, one atomic unit");
            }
            long blocks = ns.blockCount();
            rec.printf("# powerloss record v1 nonce=%016x blocks=%d block=%d seed=%d%n", nonce, blocks, BLOCK,
                    s.seed());
            BlockingQueue<MemorySegment> buffers = new ArrayBlockingQueue<>(s.depth());
            for (int i = 0; i < s.depth(); i++) {
                buffers.add(arena.allocate(BLOCK, BLOCK));
            }
            Semaphore room = new Semaphore(s.depth());
            Set<Long> inFlight = new HashSet<>();
            // blocks with a plain write since the last Flush: no FUA write goes there (see the class comment)
            Set<Long> unflushedPlain = new HashSet<>();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            long seq = 0;
            long fuaWrites = 0;
            int marks = 0;
            for (int epoch = 1; epoch <= s.epochs(); epoch++) {
                for (int k = 0; k < s.writesPerEpoch(); k++) {
                    if (!room.tryAcquire(s.commandTimeout().toSeconds() + 5, TimeUnit.SECONDS)) {
                        throw new IOException("no write completed in " + s.commandTimeout());
                    }
                    failed(failures);
                    boolean fua = random.nextInt(100) < s.fuaPercent()
                            && unflushedPlain.size() + s.depth() < blocks;
                    long block;
                    synchronized (inFlight) {
                        do {
                            block = random.nextLong(blocks);
                        } while (inFlight.contains(block) || (fua && unflushedPlain.contains(block)));
                        inFlight.add(block);
                    }
                    if (!fua) {
                        unflushedPlain.add(block);
                    }
                    long mySeq = ++seq;
                    long myBlock = block;
                    if (fua) {
                        fuaWrites++;
                    }
                    MemorySegment buf = buffers.take();
                    fill(buf, myBlock, mySeq, fua, nonce);
                    ns.writeAsync(myBlock, 1, buf, fua).whenComplete((v, e) -> {
                        if (e == null) {
                            synchronized (rec) {
                                rec.printf("W %d %d %d%n", mySeq, myBlock, fua ? 1 : 0);
                            }
                        } else {
                            failures.add(e);
                        }
                        synchronized (inFlight) {
                            inFlight.remove(myBlock);
                        }
                        buffers.add(buf);
                        room.release();
                    });
                }
                drain(room, s, failures);
                if (epoch % 2 == 1) {
                    marks += mark(rec, marker, "pre-" + epoch, 'P');
                }
                ns.flushAsync().get(s.commandTimeout().toSeconds() + 5, TimeUnit.SECONDS);
                unflushedPlain.clear();
                marks += mark(rec, marker, "post-" + epoch, 'F');
            }
            return new Summary(seq, fuaWrites, marks, blocks, nonce);
        }
    }

    private static void drain(Semaphore room, Settings s, ConcurrentLinkedQueue<Throwable> failures)
            throws Exception {
        if (!room.tryAcquire(s.depth(), s.commandTimeout().toSeconds() + 5, TimeUnit.SECONDS)) {
            throw new IOException("writes still outstanding after " + s.commandTimeout());
        }
        room.release(s.depth());
        failed(failures);
    }

    private static int mark(PrintWriter rec, Marker marker, String name, char kind) throws IOException {
        synchronized (rec) {
            rec.printf("M %s %c%n", name, kind);
            rec.flush();
        }
        marker.mark(name);
        return 1;
    }

    private static void failed(ConcurrentLinkedQueue<Throwable> failures) throws IOException {
        Throwable t = failures.peek();
        if (t != null) {
            throw new IOException("a write failed: " + t, t);
        }
    }

    /** Fills {@code s} (one block) with the content of write {@code seq} to {@code block}. */
    public static void fill(MemorySegment s, long block, long seq, boolean fua, long nonce) {
        s.set(LONG, 0, MAGIC);
        s.set(LONG, 8, block);
        s.set(LONG, 16, seq);
        s.set(LONG, 24, fua ? 1 : 0);
        s.set(LONG, 32, nonce);
        long x = nonce ^ (block * 0x9E3779B97F4A7C15L) ^ (seq * 0xC2B2AE3D27D4EB4FL);
        for (int off = 40; off < BLOCK - 8; off += 8) {
            x += 0x9E3779B97F4A7C15L; // splitmix64
            long z = x;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            s.set(LONG, off, z ^ (z >>> 31));
        }
        CRC32 crc = new CRC32();
        crc.update(s.asSlice(0, BLOCK - 8).asByteBuffer());
        s.set(LONG, BLOCK - 8, crc.getValue());
    }
}
