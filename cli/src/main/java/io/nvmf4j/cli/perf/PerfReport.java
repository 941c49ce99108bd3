package io.nvmf4j.cli.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code perf --report FILE.html}: one self-contained page (inline SVG, no script) with the latency percentile
 * curve (x: percentile on the usual "nines" scale, y: latency on a log scale, as HdrHistogram plots) and the IOPS of
 * each second, one line per run. The runs' JSON rides along inside the page, so {@code --report-append} can read
 * it back and draw the new run over the earlier ones: a regression shows as a line above the others.
 */
public final class PerfReport {

    static final String DATA_START = "<script type=\"application/json\" id=\"nvmf4j-perf-runs\">";
    static final String DATA_END = "</script>";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
        "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    private static final int W = 760;
    private static final int H = 380;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 20;
    private static final int BOTTOM = 50;

    private PerfReport() {
    }

    public static void write(Path file, List<PerfResult> results, boolean append) throws IOException {
        ArrayNode runs = append && Files.exists(file) ? readRuns(file) : MAPPER.createArrayNode();
        for (PerfResult r : results) {
            runs.add(PerfTable.json(r));
        }
        Files.writeString(file, render(runs), StandardCharsets.UTF_8);
    }

    static ArrayNode readRuns(Path file) throws IOException {
        String html = Files.readString(file, StandardCharsets.UTF_8);
        int start = html.indexOf(DATA_START);
        int end = start < 0 ? -1 : html.indexOf(DATA_END, start);
        if (start < 0 || end < 0) {
            throw new IOException(file + " is not an nvmf4j perf report (no run data inside)");
        }
        JsonNode node = MAPPER.readTree(html.substring(start + DATA_START.length(), end));
        if (!(node instanceof ArrayNode a)) {
            throw new IOException(file + ": the run data is not a list");
        }
        return a;
    }

    static String render(ArrayNode runs) throws IOException {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>nvmf4j perf report</title>\n")
                .append("<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}")
                .append("td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#eee}")
                .append("svg text{font-size:12px}</style></head><body>\n")
                .append("<h1>nvmf4j perf</h1>\n");
        table(h, runs);
        h.append("<h2>Latency by percentile</h2>\n");
        latencyCurve(h, runs);
        h.append("<h2>IOPS each second</h2>\n");
        iopsOverTime(h, runs);
        h.append(DATA_START).append(MAPPER.writeValueAsString(runs).replace("</", "<\\/")).append(DATA_END)
                .append("\n</body></html>\n");
        return h.toString();
    }

    private static void table(StringBuilder h, ArrayNode runs) {
        h.append("<table><tr><th>run</th><th>workload</th><th>size</th><th>QD x queues</th><th>op</th><th>IOPS</th>")
                .append("<th>MiB/s</th><th>avg us</th><th>p50</th><th>p99</th><th>p99.9</th><th>p99.99</th>")
                .append("<th>max</th></tr>\n");
        for (JsonNode r : runs) {
            for (String op : new String[] {"read", "write"}) {
                JsonNode o = r.path(op);
                if (o.path("ios").asLong() == 0) {
                    continue;
                }
                JsonNode l = o.path("latency_us");
                h.append("<tr><td>").append(esc(r.path("label").asText())).append("</td><td>")
                        .append(esc(r.path("workload").asText())).append("</td><td>").append(r.path("io_size").asInt())
                        .append("</td><td>").append(r.path("queue_depth").asInt()).append(" x ")
                        .append(r.path("queues").asInt()).append("</td><td>").append(op).append("</td>");
                cell(h, "%.0f", o.path("iops").asDouble());
                cell(h, "%.1f", o.path("mib_per_s").asDouble());
                for (String k : new String[] {"avg", "p50", "p99", "p99.9", "p99.99", "max"}) {
                    cell(h, "%.1f", l.path(k).asDouble());
                }
                h.append("</tr>\n");
            }
        }
        h.append("</table>\n");
    }

    private static void cell(StringBuilder h, String format, double v) {
        h.append("<td>").append(String.format(Locale.ROOT, format, v)).append("</td>");
    }

    /** x = log10(1 / (1 - p)): 0 at p0, 1 at p90, 2 at p99, 3 at p99.9 ... */
    private static void latencyCurve(StringBuilder h, ArrayNode runs) {
        List<Series> series = new ArrayList<>();
        for (JsonNode r : runs) {
            for (String op : new String[] {"read", "write"}) {
                JsonNode curve = r.path(op).path("latency_us").path("percentiles");
                if (r.path(op).path("ios").asLong() == 0 || !curve.isObject()) {
                    continue;
                }
                List<double[]> pts = new ArrayList<>();
                for (Map.Entry<String, JsonNode> e : curve.properties()) {
                    double p = Double.parseDouble(e.getKey().substring(1)) / 100.0;
                    if (p >= 1 || e.getValue().asDouble() <= 0) {
                        continue;
                    }
                    pts.add(new double[] {Math.log10(1 / (1 - p)), e.getValue().asDouble()});
                }
                series.add(new Series(r.path("label").asText() + " " + op, pts));
            }
        }
        double xMax = 5;
        double yMin = Double.MAX_VALUE;
        double yMax = 0;
        for (Series s : series) {
            for (double[] p : s.points) {
                yMin = Math.min(yMin, p[1]);
                yMax = Math.max(yMax, p[1]);
            }
        }
        if (series.isEmpty() || yMax <= 0) {
            h.append("<p>no latency data</p>\n");
            return;
        }
        double lo = Math.floor(Math.log10(yMin));
        double hi = Math.ceil(Math.log10(yMax));
        if (hi <= lo) {
            hi = lo + 1;
        }
        final double fLo = lo;
        final double fHi = hi;
        svgStart(h);
        for (int d = (int) lo; d <= hi; d++) {
            double y = yOf(Math.log10(Math.pow(10, d)), fLo, fHi);
            gridY(h, y, formatUs(Math.pow(10, d)));
        }
        String[] ticks = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
        for (int i = 0; i <= 5; i++) {
            gridX(h, LEFT + (W - LEFT - RIGHT) * i / xMax, ticks[i]);
        }
        axisLabels(h, "percentile", "latency (us, log scale)");
        int c = 0;
        for (Series s : series) {
            polyline(h, s, COLOURS[c % COLOURS.length],
                    p -> LEFT + (W - LEFT - RIGHT) * Math.min(p[0], xMax) / xMax,
                    p -> yOf(Math.log10(p[1]), fLo, fHi));
            c++;
        }
        legend(h, series);
        h.append("</svg>\n");
    }

    private static void iopsOverTime(StringBuilder h, ArrayNode runs) {
        List<Series> series = new ArrayList<>();
        int longest = 1;
        double yMax = 0;
        for (JsonNode r : runs) {
            List<double[]> pts = new ArrayList<>();
            int i = 0;
            for (JsonNode v : r.path("iops_per_second")) {
                pts.add(new double[] {++i, v.asDouble()});
                yMax = Math.max(yMax, v.asDouble());
            }
            longest = Math.max(longest, i);
            series.add(new Series(r.path("label").asText(), pts));
        }
        if (yMax <= 0) {
            h.append("<p>no per-second data</p>\n");
            return;
        }
        double top = niceCeiling(yMax);
        final int xMax = longest;
        svgStart(h);
        for (int i = 0; i <= 4; i++) {
            double v = top * i / 4;
            gridY(h, TOP + (H - TOP - BOTTOM) * (1 - v / top), String.format(Locale.ROOT, "%,.0f", v));
        }
        for (int s = 1; s <= xMax; s += Math.max(1, xMax / 10)) {
            gridX(h, LEFT + (W - LEFT - RIGHT) * (double) s / xMax, s + " s");
        }
        axisLabels(h, "second of the measured window", "IOPS");
        int c = 0;
        for (Series s : series) {
            polyline(h, s, COLOURS[c % COLOURS.length], p -> LEFT + (W - LEFT - RIGHT) * p[0] / xMax,
                    p -> TOP + (H - TOP - BOTTOM) * (1 - p[1] / top));
            c++;
        }
        legend(h, series);
        h.append("</svg>\n");
    }

    private record Series(String name, List<double[]> points) {
    }

    private static double yOf(double logValue, double lo, double hi) {
        return TOP + (H - TOP - BOTTOM) * (1 - (logValue - lo) / (hi - lo));
    }

    private static void svgStart(StringBuilder h) {
        h.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H, W, H));
    }

    private static void gridY(StringBuilder h, double y, String text) {
        h.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", LEFT, y, W - RIGHT, y, LEFT - 5, y + 4,
                esc(text)));
    }

    private static void gridX(StringBuilder h, double x, String text) {
        h.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, TOP, x, H - BOTTOM, x,
                H - BOTTOM + 16, esc(text)));
    }

    private static void axisLabels(StringBuilder h, String x, String y) {
        h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>"
                + "<text transform=\"translate(14,%d) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
                (W + LEFT) / 2, H - 12, esc(x), (H - BOTTOM + TOP) / 2, esc(y)));
    }

    private static void polyline(StringBuilder h, Series s, String colour,
            java.util.function.ToDoubleFunction<double[]> fx, java.util.function.ToDoubleFunction<double[]> fy) {
        h.append("<polyline fill=\"none\" stroke=\"").append(colour).append("\" stroke-width=\"2\" points=\"");
        for (double[] p : s.points) {
            h.append(String.format(Locale.ROOT, "%.1f,%.1f ", fx.applyAsDouble(p), fy.applyAsDouble(p)));
        }
        h.append("\"><title>").append(esc(s.name)).append("</title></polyline>\n");
    }

    private static void legend(StringBuilder h, List<Series> series) {
        int y = TOP + 6;
        int c = 0;
        for (Series s : series) {
            h.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"3\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>\n", LEFT + 10, y, COLOURS[c % COLOURS.length], LEFT + 26,
                    y + 5, esc(s.name)));
            y += 16;
            c++;
        }
    }

    private static String formatUs(double us) {
        return us >= 1000 ? String.format(Locale.ROOT, "%.0f ms", us / 1000)
                : String.format(Locale.ROOT, "%.0f us", us);
    }

    private static double niceCeiling(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** For tests: the runs inside a rendered page. */
    static List<ObjectNode> runsOf(String html) throws IOException {
        int start = html.indexOf(DATA_START);
        int end = html.indexOf(DATA_END, start);
        List<ObjectNode> out = new ArrayList<>();
        for (JsonNode n : MAPPER.readTree(html.substring(start + DATA_START.length(), end))) {
            out.add((ObjectNode) n);
        }
        return out;
    }
}
