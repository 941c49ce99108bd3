package io.nvmf4j.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTML report: self-contained SVG, and runs that accumulate with --report-append. */
class PerfReportTest {

    static PerfResult result(String label, double p50) {
        PerfSpec spec = new PerfSpec(Workload.RANDREAD, 4096, 32, 1, 100, Duration.ofSeconds(3), Duration.ZERO,
                false, 0);
        double[] curveP = {0.5, 0.9, 0.99, 0.999, 0.9999};
        double[] curveUs = {p50, p50 * 1.5, p50 * 3, p50 * 6, p50 * 10};
        LatencyStats lat = new LatencyStats(300_000, p50 * 1.1, curveUs.clone(), p50 * 12, curveP, curveUs);
        PerfResult.OpResult read = new PerfResult.OpResult(300_000, 300_000L * 4096, 100_000, 390.6, lat);
        PerfResult.OpResult none = new PerfResult.OpResult(0, 0, 0, 0, LatencyStats.EMPTY);
        return new PerfResult(spec, label, 1, 512, 3.0, read, none, 100_000, 390.6, p50 * 1.1, 0,
                new double[] {99_000, 100_000, 101_000});
    }

    @Test
    void aReportIsOnePageWithTwoSvgChartsAndNoScriptToRun(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("r.html");
        PerfReport.write(f, List.of(result("baseline", 20)), false);
        String html = Files.readString(f);
        assertEquals(2, html.split("<svg ", -1).length - 1, "latency curve and IOPS chart");
        assertTrue(html.contains("<polyline"), "a line per run");
        assertFalse(html.contains("<script src"), "no external script");
        assertFalse(html.contains("http://") && html.replace("http://www.w3.org/2000/svg", "").contains("http://"),
                "nothing loaded from elsewhere");
        assertEquals(1, PerfReport.runsOf(html).size());
        assertTrue(html.contains("<td>baseline</td>"));
    }

    @Test
    void appendDrawsTheNewRunOverTheEarlierOnes(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("r.html");
        PerfReport.write(f, List.of(result("before", 20)), false);
        PerfReport.write(f, List.of(result("after", 35)), true);
        String html = Files.readString(f);
        List<com.fasterxml.jackson.databind.node.ObjectNode> runs = PerfReport.runsOf(html);
        assertEquals(2, runs.size());
        assertEquals("before", runs.get(0).get("label").asText());
        assertEquals("after", runs.get(1).get("label").asText());
        assertEquals(35.0, runs.get(1).get("read").get("latency_us").get("p50").asDouble(), 1e-9);
        // Two lines in each chart: 2 in the latency curve (reads only) + 2 in the IOPS chart.
        assertEquals(4, html.split("<polyline", -1).length - 1);
    }

    @Test
    void withoutAppendTheFileStartsOver(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("r.html");
        PerfReport.write(f, List.of(result("one", 20)), false);
        PerfReport.write(f, List.of(result("two", 20)), false);
        assertEquals(1, PerfReport.runsOf(Files.readString(f)).size());
    }

    @Test
    void jsonOfAResultHasTheTableFields() {
        var o = PerfTable.json(result("x", 20));
        assertEquals("randread", o.get("workload").asText());
        assertEquals(32, o.get("queue_depth").asInt());
        assertEquals(100_000, o.get("read").get("iops").asDouble(), 1e-9);
        for (String k : new String[] {"avg", "p50", "p90", "p99", "p99.9", "p99.99", "max", "samples"}) {
            assertTrue(o.get("read").get("latency_us").has(k), k);
        }
        assertEquals(3, o.get("iops_per_second").size());
        assertEquals("p99.99", PerfTable.percentileKey(0.9999));
        assertEquals("p50", PerfTable.percentileKey(0.5));
    }

    @Test
    void percentileKeysAreTheShortDecimalNotTheDoublesExpansion() {
        assertEquals("p99.999", PerfTable.percentileKey(0.99999), "was p99.99900000000001");
        assertEquals("p99.995", PerfTable.percentileKey(0.99995));
        assertEquals("p1", PerfTable.percentileKey(0.01));
        for (double p : LatencyMeter.CURVE_PERCENTILES) {
            assertTrue(PerfTable.percentileKey(p).matches("p\\d{1,2}(\\.\\d{1,4})?"), PerfTable.percentileKey(p));
        }
    }

    @Test
    void overlayingSeveralRunsDrawsOneSeriesPerRunInEachChartWithPointsInsideThePlot(@TempDir Path dir)
            throws Exception {
        Path f = dir.resolve("bench.html");
        String[] labels = {"qd1-randread-4k", "qd32-randread-4k-1q", "qd32-randread-4k-2q", "seqread-128k"};
        for (int i = 0; i < labels.length; i++) {
            PerfReport.write(f, List.of(result(labels[i], 10 + 10 * i)), true);
        }
        String html = Files.readString(f);
        assertEquals(labels.length, PerfReport.runsOf(html).size());
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("<polyline [^>]*points=\"([^\"]*)\"><title>([^<]*)</title>").matcher(html);
        java.util.List<String> titles = new java.util.ArrayList<>();
        while (m.find()) {
            titles.add(m.group(2));
            String[] points = m.group(1).trim().split(" ");
            assertTrue(points.length >= 3, m.group(2) + ": a line, not a dot");
            for (String p : points) {
                String[] xy = p.split(",");
                double x = Double.parseDouble(xy[0]);
                double y = Double.parseDouble(xy[1]);
                assertTrue(x >= 0 && x <= 760 && y >= 0 && y <= 380, m.group(2) + ": " + p + " outside the plot");
            }
        }
        // latency curve: "<label> read" per run; IOPS chart: "<label>" per run
        java.util.List<String> expected = new java.util.ArrayList<>();
        for (String l : labels) {
            expected.add(l + " read");
        }
        expected.addAll(List.of(labels));
        assertEquals(expected, titles);
        // a slower run draws its latency line higher (smaller y) at p50 than a faster one
        assertTrue(firstY(html, labels[3] + " read") < firstY(html, labels[0] + " read"));
    }

    private static double firstY(String html, String title) {
        int t = html.indexOf("<title>" + title + "</title>");
        int start = html.lastIndexOf("points=\"", t) + 8;
        return Double.parseDouble(html.substring(start, html.indexOf(' ', start)).split(",")[1]);
    }
}
