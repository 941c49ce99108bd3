package io.nvmf4j.target.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nvmf4j.target.AuthOutcome;
import org.junit.jupiter.api.Test;

/** nvmf4j_auth_total{result,reason}: every label registered up front, at zero; counted by outcome. */
class AuthMetricsTest {

    @Test
    void everyOutcomeIsASeriesFromTheStartAndCounts() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        TargetMetrics metrics = new TargetMetrics(registry);
        assertEquals(AuthOutcome.values().length, registry.find("nvmf4j.auth").counters().size());
        assertEquals(0, registry.get("nvmf4j.auth").tag("result", "failure").tag("reason", "timeout").counter()
                .count());
        metrics.authentication(AuthOutcome.SUCCESS);
        metrics.authentication(AuthOutcome.SUCCESS);
        metrics.authentication(AuthOutcome.FAILED);
        assertEquals(2, registry.get("nvmf4j.auth").tag("result", "success").tag("reason", "none").counter().count());
        assertEquals(1, registry.get("nvmf4j.auth").tag("result", "failure").tag("reason", "failed").counter()
                .count());
        // bounded labels only: result and reason, nothing from the peer
        registry.find("nvmf4j.auth").counters().forEach(c -> {
            assertEquals(2, c.getId().getTags().size());
            assertFalse(c.getId().getTag("reason").contains(":"));
        });
        assertTrue(registry.find("nvmf4j.auth").tag("reason", "dhgroup_unusable").counter() != null);
    }
}
