package io.nvmf4j.testsupport;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The property every fuzz target checks, and the short generative run {@code mvn verify} does.
 *
 * <p>The property: only the documented exception types leave a parser; it neither hangs nor allocates in proportion
 * to a size the peer declares (the bytes allocated by the calling thread are measured with
 * {@link com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes()}, so a 4 GiB claim in a 64-byte input
 * shows up even when the heap happens to be large enough). Jazzer ({@code bench/fuzz.sh}) treats any escaping
 * throwable as a finding; {@link #shortRun} does the same with a seeded mutator for a few thousand inputs.
 *
 * <p>One class for the fuzz targets of every module (the {@code nvmf4j-test-support} artifact, test scope).
 */
public final class FuzzSupport {

    /** Default allocation bound per input: far above what any honest decode of a fuzz-sized input needs. */
    public static final long ALLOCATION_LIMIT = 4L << 20;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    private FuzzSupport() {
    }

    /**
     * Runs {@code body} on {@code input}: an exception that is an instance of one of {@code documented} is the
     * parser's way of saying no; anything else propagates (a finding), and so does an allocation above
     * {@code allocationLimit} bytes.
     */
    @SafeVarargs
    public static void check(byte[] input, long allocationLimit, Body body, Class<? extends Throwable>... documented) {
        // read element by element, not passed on as an array: that is what makes @SafeVarargs true
        List<Class<? extends Throwable>> kinds = new ArrayList<>(documented.length);
        for (Class<? extends Throwable> k : documented) {
            kinds.add(k);
        }
        long allocated = runOnce(input, body, kinds);
        if (allocated > allocationLimit) {
            // the first run of a code path also pays for class loading and initialisation: only an allocation
            // that repeats with the same input is the parser's
            allocated = runOnce(input, body, kinds);
            if (allocated > allocationLimit) {
                throw new AssertionError("allocated " + allocated + " bytes (limit " + allocationLimit + ") for a "
                        + input.length + "-byte input " + abbreviated(input));
            }
        }
    }

    private static long runOnce(byte[] input, Body body, List<Class<? extends Throwable>> documented) {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        try {
            body.run();
        } catch (Throwable t) {
            if (!isDocumented(t, documented)) {
                throw new AssertionError("undocumented " + t.getClass().getName() + " for input "
                        + abbreviated(input), t);
            }
        }
        return THREADS.getCurrentThreadAllocatedBytes() - before;
    }

    private static boolean isDocumented(Throwable t, List<Class<? extends Throwable>> documented) {
        for (Class<? extends Throwable> c : documented) {
            if (c.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    public static String abbreviated(byte[] input) {
        String hex = HexFormat.of().formatHex(input, 0, Math.min(input.length, 96));
        return input.length > 96 ? hex + "... (" + input.length + " bytes)" : hex;
    }

    // ---- short generative run for mvn verify ------------------------------------------------------------------

    /** Inputs per target in {@code mvn verify}; {@code -Dnvmf4j.fuzz.inputs=N} changes it. */
    public static int shortRunInputs(int defaultInputs) {
        return Integer.getInteger("nvmf4j.fuzz.inputs", defaultInputs);
    }

    /**
     * Replays every corpus file of {@code target} (the Jazzer inputs directory
     * {@code <Class>Inputs/<method>/} next to the test class on the class path), then feeds {@code inputs}
     * mutations of them (bit flips, boundary values at every offset, insertions, deletions, splices) to
     * {@code target}, within {@code seconds}. The seed is fixed ({@code -Dnvmf4j.fuzz.seed} overrides it) so a
     * failure reproduces; the failing input is written to {@code target/fuzz-findings/} and named in the error.
     */
    public static int shortRun(Class<?> testClass, String method, int maxLength, int inputs, double seconds,
            Consumer<byte[]> target) {
        List<byte[]> seeds = corpus(testClass, method);
        seeds.add(new byte[0]);
        long seed = Long.getLong("nvmf4j.fuzz.seed", 0x6E766D6634L) ^ method.hashCode();
        Random random = new Random(seed);
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        int run = 0;
        for (byte[] s : seeds) {
            feed(testClass, method, s, target);
            run++;
        }
        while (run < inputs && System.nanoTime() < deadline) {
            byte[] input = mutate(random, seeds.get(random.nextInt(seeds.size())),
                    seeds.get(random.nextInt(seeds.size())), maxLength);
            feed(testClass, method, input, target);
            run++;
        }
        return run;
    }

    private static void feed(Class<?> testClass, String method, byte[] input, Consumer<byte[]> target) {
        try {
            target.accept(input);
        } catch (Throwable t) {
            Path saved = save(testClass, method, input);
            throw new AssertionError(testClass.getSimpleName() + "#" + method + " failed for the input saved as "
                    + saved + " (copy it into the corpus directory to keep it as a regression test): " + t, t);
        }
    }

    private static Path save(Class<?> testClass, String method, byte[] input) {
        try {
            Path dir = Paths.get("target", "fuzz-findings", testClass.getSimpleName(), method);
            Files.createDirectories(dir);
            byte[] sha = MessageDigest.getInstance("SHA-1").digest(input);
            return Files.write(dir.resolve("crash-" + HexFormat.of().formatHex(sha)), input);
        } catch (IOException | NoSuchAlgorithmException e) {
            return Paths.get("(not saved: " + e + ")");
        }
    }

    /** The corpus of {@code method}: the files of {@code <package>/<Class>Inputs/<method>/} on the class path. */
    public static List<byte[]> corpus(Class<?> testClass, String method) {
        List<byte[]> seeds = new ArrayList<>();
        URL url = testClass.getResource(testClass.getSimpleName() + "Inputs/" + method);
        if (url == null) {
            return seeds;
        }
        try (Stream<Path> files = Files.list(Paths.get(url.toURI()))) {
            for (Path p : files.sorted().toList()) {
                seeds.add(Files.readAllBytes(p));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return seeds;
    }

    private static final long[] BOUNDARIES = {0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000,
        0x7fffffffL, 0x80000000L, 0xffffffffL, 0x100000000L, Long.MAX_VALUE, Long.MIN_VALUE, -1L};

    public static byte[] mutate(Random r, byte[] base, byte[] other, int maxLength) {
        byte[] b = base.clone();
        int rounds = 1 + r.nextInt(4);
        for (int i = 0; i < rounds; i++) {
            b = switch (r.nextInt(8)) {
                case 0 -> flipBit(r, b);
                case 1 -> setByte(r, b);
                case 2 -> boundary(r, b);
                case 3 -> insert(r, b);
                case 4 -> delete(r, b);
                case 5 -> splice(r, b, other);
                case 6 -> duplicate(r, b);
                default -> randomBytes(r, b);
            };
        }
        return b.length > maxLength ? java.util.Arrays.copyOf(b, maxLength) : b;
    }

    private static byte[] flipBit(Random r, byte[] b) {
        if (b.length > 0) {
            b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
        }
        return b;
    }

    private static byte[] setByte(Random r, byte[] b) {
        if (b.length > 0) {
            b[r.nextInt(b.length)] = (byte) r.nextInt(256);
        }
        return b;
    }

    /** A boundary value (0, 2^31, 2^63, 2^64-1...) as 1, 2, 4 or 8 bytes, little or big endian, anywhere. */
    private static byte[] boundary(Random r, byte[] b) {
        int width = 1 << r.nextInt(4);
        if (b.length < width) {
            return b;
        }
        long v = BOUNDARIES[r.nextInt(BOUNDARIES.length)] + (r.nextInt(3) - 1);
        int at = r.nextInt(b.length - width + 1);
        boolean little = r.nextBoolean();
        for (int i = 0; i < width; i++) {
            int shift = 8 * (little ? i : width - 1 - i);
            b[at + i] = (byte) (v >>> shift);
        }
        return b;
    }

    private static byte[] insert(Random r, byte[] b) {
        int n = 1 + r.nextInt(16);
        int at = r.nextInt(b.length + 1);
        byte[] out = new byte[b.length + n];
        System.arraycopy(b, 0, out, 0, at);
        for (int i = 0; i < n; i++) {
            out[at + i] = (byte) r.nextInt(256);
        }
        System.arraycopy(b, at, out, at + n, b.length - at);
        return out;
    }

    private static byte[] delete(Random r, byte[] b) {
        if (b.length == 0) {
            return b;
        }
        int at = r.nextInt(b.length);
        int n = 1 + r.nextInt(Math.min(64, b.length - at));
        byte[] out = new byte[b.length - n];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(b, at + n, out, at, b.length - at - n);
        return out;
    }

    private static byte[] splice(Random r, byte[] b, byte[] other) {
        if (other.length == 0) {
            return b;
        }
        int from = r.nextInt(other.length);
        int n = 1 + r.nextInt(Math.min(256, other.length - from));
        int at = r.nextInt(b.length + 1);
        byte[] out = java.util.Arrays.copyOf(b, Math.max(b.length, at + n));
        System.arraycopy(other, from, out, at, n);
        return out;
    }

    private static byte[] duplicate(Random r, byte[] b) {
        if (b.length == 0 || b.length > 1 << 16) {
            return b;
        }
        int from = r.nextInt(b.length);
        int n = 1 + r.nextInt(b.length - from);
        byte[] out = new byte[b.length + n];
        System.arraycopy(b, 0, out, 0, b.length);
        System.arraycopy(b, from, out, b.length, n);
        return out;
    }

    private static byte[] randomBytes(Random r, byte[] b) {
        int at = b.length == 0 ? 0 : r.nextInt(b.length);
        int n = Math.min(b.length - at, 1 + r.nextInt(32));
        for (int i = 0; i < n; i++) {
            b[at + i] = (byte) r.nextInt(256);
        }
        return b.length == 0 ? new byte[] {(byte) r.nextInt(256)} : b;
    }

    public static void assertStable(Object first, Object second, byte[] input) {
        if (!first.equals(second)) {
            fail("encode(decode(x)) is not stable for " + abbreviated(input) + ": " + first + " then " + second);
        }
    }
}
