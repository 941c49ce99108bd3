package io.nvmf4j.cli.perf;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every series perf serves to Prometheus says what it is: no empty "# HELP name" line. */
class PerfMetricsHelpTest {

    @Test
    void everyPerfSeriesHasAHelpText() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new LatencyMeter(registry, "read", "run1", true);
        PerfRun.registerCounters(registry, List.of(), "run1");
        String scrape = registry.scrape();
        assertTrue(scrape.contains("# HELP nvmf4j_perf_ios_total "), scrape);
        assertTrue(scrape.contains("# HELP nvmf4j_perf_bytes_total "), scrape);
        for (String line : scrape.split("\n")) {
            if (line.startsWith("# HELP ")) {
                String[] parts = line.split(" ", 4);
                assertFalse(parts.length < 4 || parts[3].isBlank(), "empty HELP: '" + line + "'");
            }
        }
        registry.close();
    }
}
