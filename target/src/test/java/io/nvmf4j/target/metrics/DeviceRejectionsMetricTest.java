package io.nvmf4j.target.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** nvmf4j_rejected_total's provider series keep counting after garbage collections. */
class DeviceRejectionsMetricTest {

    @Test
    void aProviderSeriesStillCountsAfterTheSupplierOnlyTheMetricsHoldWentThroughGarbageCollections() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        TargetMetrics metrics = new TargetMetrics(registry);
        AtomicLong timeouts = new AtomicLong();
        // what the daemon passes: a method reference made on the spot, held by nothing but the metrics
        metrics.registerDeviceRejections(() -> Map.of("mpa_timeout", timeouts.get()));
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
        }
        timeouts.set(3);
        FunctionCounter counter = registry.get("nvmf4j.rejected").tag("reason", "mpa_timeout").functionCounter();
        assertEquals(3.0, counter.count(), "a peer dropped for its MPA timeout is counted");
    }
}
