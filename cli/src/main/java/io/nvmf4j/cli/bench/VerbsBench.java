package io.nvmf4j.cli.bench;

import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaProvider;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.SendOpcode;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bench/verbs.sh}'s Java part: on 127.0.0.1, a provider's Send/Receive round trip (8 B and
 * 4 KiB, median and p99) and RDMA Write / RDMA Read bandwidth (64 KiB and 1 MiB), each beside the same
 * figure for plain TCP sockets measured in this run (a ping-pong and a stream), the ratio, optionally
 * the C reference ({@code tcprr}) figures the script measured, and per row the heap bytes allocated per
 * operation by all threads in the measured window and the garbage collections in it.
 *
 * <pre>
 *   java -cp common-verbs.jar io.nvmf4j.cli.bench.VerbsBench [--provider softiwarp] [--seconds 3]
 *        [--warmup 1] [--depth 8] [--busy-poll] [--ref rtt8=61.0 --ref rtt4k=.. --ref stream64k=.. --ref stream1m=..]
 * </pre>
 *
 * {@code --busy-poll}: the benchmark threads poll their CQ in a loop instead of the CQ's await (spin a
 * budget, then park). A figure that fails (an error completion, a timeout) shows as "failed" with the
 * reason under the table; the other figures are still measured.
 */
public final class VerbsBench {

    private record Row(String name, String unit, Measurement verbs, Measurement tcp, String refKey,
            boolean lowerIsBetter, boolean p99) {
    }

    /** A figure's measurement, which may throw. */
    @FunctionalInterface
    private interface Figure {
        Measurement measure() throws Exception;
    }

    private VerbsBench() {
    }

    private static Measurement measure(String what, Figure figure) {
        progress(what);
        try {
            return figure.measure();
        } catch (Exception e) {
            System.err.println("bench: " + what + " FAILED: " + e);
            return Measurement.failed(e);
        }
    }

    public static void main(String[] args) throws Exception {
        String providerName = "softiwarp";
        Duration window = Duration.ofSeconds(3);
        Duration warmup = Duration.ofSeconds(1);
        int depth = 8;
        boolean busyPoll = false;
        Map<String, Double> refs = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--provider" -> providerName = args[++i];
                case "--seconds" -> window = Duration.ofMillis((long) (Double.parseDouble(args[++i]) * 1000));
                case "--warmup" -> warmup = Duration.ofMillis((long) (Double.parseDouble(args[++i]) * 1000));
                case "--depth" -> depth = Integer.parseInt(args[++i]);
                case "--busy-poll" -> busyPoll = true;
                case "--ref" -> {
                    String[] kv = args[++i].split("=", 2);
                    if (kv.length == 2 && !kv[1].isBlank()) {
                        refs.put(kv[0], Double.parseDouble(kv[1]));
                    }
                }
                default -> {
                    System.err.println("usage: VerbsBench [--provider name] [--seconds s] [--warmup s] [--depth n]"
                            + " [--busy-poll] [--ref key=value]...");
                    System.exit(2);
                }
            }
        }
        PrintStream out = System.out;
        RdmaProvider provider = RdmaProviders.byName(providerName);
        List<Row> rows = new ArrayList<>();
        final Duration w = window;
        final Duration wu = warmup;
        final boolean busy = busyPoll;
        final int d = depth;
        try (RdmaDevice device = provider.openDevice(null)) {
            for (int size : new int[] {8, 4096}) {
                String label = size == 8 ? "8 B" : "4 KiB";
                Measurement verbs = measure("Send/Receive round trip " + label + ": " + providerName,
                        () -> VerbsPingPong.run(device, size, wu, w, busy));
                Measurement tcp = measure("ping-pong " + label + ": TCP", () -> TcpPingPong.run(size, wu, w));
                String key = size == 8 ? "rtt8" : "rtt4k";
                rows.add(new Row("Send/Recv round trip " + label + ", median", "us", verbs, tcp, key, true, false));
                rows.add(new Row("Send/Recv round trip " + label + ", p99", "us", verbs, tcp, key + "p99", true, true));
            }
            Map<Integer, Measurement> streams = new HashMap<>();
            for (int size : new int[] {64 * 1024, 1024 * 1024}) {
                streams.put(size, measure("TCP stream " + size / 1024 + " KiB", () -> TcpStream.run(size, wu, w)));
            }
            for (SendOpcode opcode : new SendOpcode[] {SendOpcode.RDMA_WRITE, SendOpcode.RDMA_READ}) {
                for (int size : new int[] {64 * 1024, 1024 * 1024}) {
                    String label = size == 65536 ? "64 KiB" : "1 MiB";
                    Measurement verbs = measure(opcode + " " + label + ", depth " + depth + ": " + providerName,
                            () -> VerbsBandwidth.run(device, opcode, size, d, wu, w, busy));
                    rows.add(new Row((opcode == SendOpcode.RDMA_WRITE ? "RDMA Write " : "RDMA Read ") + label
                            + " (TCP: stream)", "MB/s", verbs, streams.get(size),
                            size == 65536 ? "stream64k" : "stream1m", false, false));
                }
            }
        }
        print(out, providerName + (busyPoll ? " (busy-poll)" : ""), depth, window, rows, refs);
        boolean failed = rows.stream().anyMatch(r -> r.verbs.failure() != null || r.tcp.failure() != null);
        System.exit(failed ? 1 : 0);
    }

    private static void progress(String what) {
        System.err.println("bench: " + what);
    }

    private static void print(PrintStream out, String provider, int depth, Duration window, List<Row> rows,
            Map<String, Double> refs) {
        String address;
        try {
            address = VerbsLoopback.address().getHostAddress();
        } catch (java.io.IOException e) {
            address = "?";
        }
        out.printf("%nverbs benchmark on %s (TCP: 127.0.0.1): %s vs plain TCP sockets, same JVM, same run; %s s per"
                + " figure; RDMA ops %d outstanding%n", address, provider, window.toMillis() / 1000.0, depth);
        out.println("ratio = " + provider + " / TCP (latency: above 1 is slower; bandwidth: below 1 is slower)."
                + " alloc = heap bytes allocated per operation by all JVM threads in the measured window.");
        String format = "%-42s %-5s %12s %12s %8s %12s %10s %10s %5s%n";
        out.println();
        out.printf(format, "figure", "unit", provider, "Java TCP", "ratio", "C tcprr", "alloc B/op", "TCP B/op",
                "GCs");
        out.println("-".repeat(124));
        for (Row row : rows) {
            double v = row.p99 ? row.verbs.p99() : row.verbs.value();
            double t = row.p99 ? row.tcp.p99() : row.tcp.value();
            Double ref = refs.get(row.refKey);
            out.printf(format, row.name, row.unit, row.verbs.failure() != null ? "failed" : fmt(v),
                    row.tcp.failure() != null ? "failed" : fmt(t), Double.isNaN(v / t) ? "-" : String.format("%.2f", v / t),
                    ref == null ? "-" : fmt(ref), fmt2(row.verbs.bytesPerOperation()),
                    fmt2(row.tcp.bytesPerOperation()), row.verbs.collections());
        }
        out.println();
        out.println("per row (" + provider + " / TCP): operations measured; heap bytes allocated in the window; "
                + provider + "'s top allocating threads");
        for (Row row : rows) {
            if (!row.p99) {
                out.printf("  %-40s %,9d / %,9d ops; %,11d / %,d bytes; %s%n", row.name, row.verbs.operations(),
                        row.tcp.operations(), row.verbs.allocatedBytes(), row.tcp.allocatedBytes(),
                        row.verbs.topAllocators());
            }
        }
        for (Row row : rows) {
            if (!row.p99 && (row.verbs.failure() != null || row.tcp.failure() != null)) {
                out.println("FAILED " + row.name + ": " + (row.verbs.failure() != null ? row.verbs.failure()
                        : row.tcp.failure()));
            }
        }
    }

    private static String fmt2(double v) {
        return Double.isNaN(v) ? "-" : String.format("%.2f", v);
    }

    private static String fmt(double v) {
        return Double.isNaN(v) ? "-" : v >= 100 ? String.format("%.0f", v) : String.format("%.1f", v);
    }
}
