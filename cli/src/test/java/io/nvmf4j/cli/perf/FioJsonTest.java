package io.nvmf4j.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** perf --output-format fio-json has the keys and units fio's --output-format=json has, so fio parsers read it. */
class FioJsonTest {

    static PerfResult result() {
        double[] curveP = LatencyMeter.CURVE_PERCENTILES.clone();
        double[] curveUs = new double[curveP.length];
        for (int i = 0; i < curveP.length; i++) {
            curveUs[i] = 10 + 100 * curveP[i];
        }
        LatencyStats lat = new LatencyStats(300_000, 55.5, new double[] {60, 100, 109, 110, 110}, 500, curveP,
                curveUs, 8.25, 12.5);
        PerfSpec spec = new PerfSpec(Workload.RANDRW, 4096, 32, 1, 70, Duration.ofSeconds(3), Duration.ofSeconds(1),
                false, 0);
        PerfResult.OpResult read = PerfResult.OpResult.of(210_000, 210_000L * 4096, 3.0, lat);
        PerfResult.OpResult write = PerfResult.OpResult.of(90_000, 90_000L * 4096, 3.0, lat);
        return new PerfResult(spec, "randrw-4096-qd32", 1, 512, 3.0, read, write, 100_000, 390.6, 55.5, 0,
                new double[] {90_000, 100_000, 110_000});
    }

    @Test
    void jobsReadWriteHaveFiosKeysAndUnits() throws Exception {
        JsonNode root = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(
                FioJson.document(result(), "0.1.0", 1_764_754_200_000L)));
        assertTrue(root.get("fio version").asText().startsWith("nvmf4j-"));
        assertEquals(1_764_754_200L, root.get("timestamp").asLong());
        JsonNode job = root.get("jobs").get(0);
        assertEquals("randrw-4096-qd32", job.get("jobname").asText());
        assertEquals("70", job.get("job options").get("rwmixread").asText());
        JsonNode read = job.get("read");
        assertEquals(210_000L * 4096, read.get("io_bytes").asLong());
        assertEquals(210_000L * 4096 / 1024, read.get("io_kbytes").asLong());
        assertEquals(210_000L * 4096 / 3, read.get("bw_bytes").asLong());
        assertEquals(210_000L * 4096 / 3 / 1024, read.get("bw").asLong(), "bw is KiB/s");
        assertEquals(70_000, read.get("iops").asDouble(), 1e-6);
        assertEquals(3000, read.get("runtime").asLong(), "ms");
        assertEquals(210_000, read.get("total_ios").asLong());
        for (String k : new String[] {"slat_ns", "clat_ns", "lat_ns"}) {
            for (String f : new String[] {"min", "max", "mean", "stddev", "N"}) {
                assertTrue(read.get(k).has(f), k + "." + f);
            }
        }
        JsonNode clat = read.get("clat_ns");
        assertEquals(8250, clat.get("min").asLong());
        assertEquals(500_000, clat.get("max").asLong());
        assertEquals(55_500, clat.get("mean").asDouble(), 1e-6);
        assertEquals(300_000, clat.get("N").asLong());
        JsonNode pct = clat.get("percentile");
        assertEquals(17, pct.size(), "fio's default percentile_list");
        assertEquals(109_000, pct.get("99.000000").asLong(), "C's %f keys, nanosecond values");
        assertEquals(11_000, pct.get("1.000000").asLong());
        assertTrue(pct.has("99.990000") && pct.has("99.500000") && pct.has("5.000000"), pct.toString());
        assertEquals(63_000, read.get("iops_min").asLong(), "the read share (70 %) of the slowest second");
        assertEquals(3, read.get("iops_samples").asInt());
        assertEquals(90_000, job.get("write").get("total_ios").asLong());
        assertEquals(0, job.get("trim").get("total_ios").asLong());
        assertEquals(3000, job.get("job_runtime").asLong());
    }

    @Test
    void percentileKeysArePrintedAsCsPercentF() {
        assertEquals("99.990000", FioJson.percentileKey(0.9999));
        assertEquals("99.950000", FioJson.percentileKey(0.9995));
        assertEquals("1.000000", FioJson.percentileKey(0.01));
        assertEquals("50.000000", FioJson.percentileKey(0.5));
    }
}
