package io.nvmf4j.cli.perf;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nvmf4j.cli.host.Json;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * The final table of {@code nvmf4j perf} (one row per direction and a total, as SPDK perf prints a row per
 * namespace and a Total), and the same numbers as JSON.
 */
public final class PerfTable {

    private static final String[] HEADINGS = {"IOPS", "MiB/s", "avg", "p50", "p90", "p99", "p99.9", "p99.99",
        "max"};

    private PerfTable() {
    }

    /** Prints one heading line per run and all rows under one column header (so several runs line up). */
    public static void print(PrintWriter out, List<PerfResult> results) {
        boolean footnote = false;
        int width = 14;
        for (PerfResult r : results) {
            width = Math.max(width, (results.size() == 1 ? 0 : r.label().length() + 1) + 8);
        }
        String nameColumn = "%-" + width + "s";
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, nameColumn, "latency in us"));
        for (String h : HEADINGS) {
            header.append(String.format(Locale.ROOT, "%11s", h));
        }
        for (PerfResult r : results) {
            out.println(r.label() + ": " + r.spec().describe() + ", " + r.queues() + " queue(s) used");
        }
        out.println(header);
        for (PerfResult r : results) {
            String name = results.size() == 1 ? "" : r.label() + " ";
            if (r.read().ios() > 0) {
                footnote |= row(out, nameColumn, name + "read", r.read());
            }
            if (r.write().ios() > 0) {
                footnote |= row(out, nameColumn, name + "write", r.write());
            }
            if (r.read().ios() > 0 && r.write().ios() > 0) {
                out.println(String.format(Locale.ROOT, nameColumn + "%11.0f%11.2f%11.1f", name + "total", r.totalIops(),
                        r.totalMibps(), r.totalAverageUs()));
            }
            if (r.read().ios() == 0 && r.write().ios() == 0) {
                out.println(String.format(Locale.ROOT, nameColumn + "%11s", name + "(no I/O completed)", "-"));
            }
            if (r.spec().verify()) {
                out.println(String.format(Locale.ROOT, nameColumn + "%,d blocks read back and verified, no mismatch",
                        name + "verify", r.verifiedBlocks()));
            }
        }
        if (footnote) {
            out.println("* fewer samples than the percentile needs (p99.99 needs 10000): "
                    + "the value is the largest seen");
        }
        out.flush();
    }

    private static boolean row(PrintWriter out, String nameColumn, String name, PerfResult.OpResult op) {
        LatencyStats l = op.latency();
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, nameColumn + "%11.0f%11.2f%11.1f", name,
                op.iops(),
                op.mibps(), l.averageUs()));
        boolean marked = false;
        for (int i = 0; i < LatencyMeter.TABLE_PERCENTILES.length; i++) {
            boolean ok = l.resolves(LatencyMeter.TABLE_PERCENTILES[i]);
            marked |= !ok;
            line.append(String.format(Locale.ROOT, "%11s", String.format(Locale.ROOT, "%.1f", l.tableUs()[i])
                    + (ok ? "" : "*")));
        }
        line.append(String.format(Locale.ROOT, "%11.1f", l.maxUs()));
        out.println(line);
        return marked;
    }

    public static ObjectNode json(PerfResult r) {
        ObjectNode o = Json.object();
        o.put("label", r.label());
        o.put("workload", r.spec().workload().label());
        o.put("io_size", r.spec().ioSize());
        o.put("queue_depth", r.spec().depth());
        o.put("queues", r.queues());
        o.put("read_percent", r.spec().effectiveReadPercent());
        o.put("block_size", r.blockSize());
        o.put("verify", r.spec().verify());
        o.put("ramp_seconds", r.spec().ramp().toMillis() / 1000.0);
        o.put("seconds", r.seconds());
        o.set("read", op(r.read()));
        o.set("write", op(r.write()));
        ObjectNode total = o.putObject("total");
        total.put("iops", r.totalIops());
        total.put("mib_per_s", r.totalMibps());
        total.put("avg_us", r.totalAverageUs());
        if (r.spec().verify()) {
            o.put("verified_blocks", r.verifiedBlocks());
        }
        ArrayNode series = o.putArray("iops_per_second");
        for (double v : r.iopsPerSecond()) {
            series.add(Math.round(v));
        }
        return o;
    }

    private static ObjectNode op(PerfResult.OpResult op) {
        ObjectNode o = Json.object();
        LatencyStats l = op.latency();
        o.put("ios", op.ios());
        o.put("bytes", op.bytes());
        o.put("iops", op.iops());
        o.put("mib_per_s", op.mibps());
        ObjectNode lat = o.putObject("latency_us");
        lat.put("samples", l.count());
        lat.put("avg", l.averageUs());
        lat.put("p50", l.p50());
        lat.put("p90", l.p90());
        lat.put("p99", l.p99());
        lat.put("p99.9", l.p999());
        lat.put("p99.99", l.p9999());
        lat.put("max", l.maxUs());
        ObjectNode curve = lat.putObject("percentiles");
        for (int i = 0; i < l.curveP().length; i++) {
            curve.put(percentileKey(l.curveP()[i]), l.curveUs()[i]);
        }
        return o;
    }

    /**
     * "p99.999" for 0.99999: the percent in decimal, from the percentile's shortest decimal form (multiplying the
     * double by 100 gave 99.99900000000001).
     */
    static String percentileKey(double p) {
        return "p" + java.math.BigDecimal.valueOf(p).movePointRight(2).stripTrailingZeros().toPlainString();
    }
}
