package io.nvmf4j.target;

/**
 * Told how each DH-HMAC-CHAP transaction ends (metrics: {@code io.nvmf4j.target.metrics.TargetMetrics}). Called on
 * poll-group or timer threads, rarely (once per queue and transaction): must not block.
 */
@FunctionalInterface
public interface AuthenticationObserver {

    void authentication(AuthOutcome outcome);

    AuthenticationObserver NONE = outcome -> { };
}
