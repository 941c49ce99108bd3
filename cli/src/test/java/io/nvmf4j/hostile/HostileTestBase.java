package io.nvmf4j.hostile;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Per test: a fresh target, a legitimate host connected to it that has done verified I/O, and a resource baseline.
 * {@link #assertTargetSurvived()} is every test's closing check: the target still serves the host that was there
 * before the attack and a host that arrives after it, both with verified I/O, and threads and memory are flat.
 */
abstract class HostileTestBase {

    /** Threads that may come and go legitimately (a reconnect timer, a closing connection's last work). */
    static final int EXTRA_THREADS = 6;
    /** Bounded growth of RSS across one attack (JIT and heap warm-up included). */
    static final long EXTRA_RSS = 192L << 20;

    TargetUnderAttack target;
    LegitimateHost host;
    ResourceGauge.Sample baseline;
    final List<AutoCloseable> attackers = new ArrayList<>();
    /** Log records from io.nvmf4j carrying a stack trace during this test. */
    final AtomicInteger stackTraces = new AtomicInteger();
    private final Handler stackTraceCounter = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (r.getThrown() != null && r.getLoggerName() != null && r.getLoggerName().startsWith("io.nvmf4j")) {
                stackTraces.incrementAndGet();
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void startTargetAndHost() throws Exception {
        target = TargetUnderAttack.start();
        host = LegitimateHost.connect(target.address);
        host.verifiedIo(1, 4);
        baseline = ResourceGauge.collected();
        Logger.getLogger("").addHandler(stackTraceCounter);
    }

    @AfterEach
    void stopAll() {
        Logger.getLogger("").removeHandler(stackTraceCounter);
        closeAttackers();
        if (host != null) {
            host.close();
        }
        if (target != null) {
            target.close();
        }
    }

    <T extends AutoCloseable> T attacker(T a) {
        attackers.add(a);
        return a;
    }

    void closeAttackers() {
        for (AutoCloseable a : attackers) {
            try {
                a.close();
            } catch (Exception ignored) {
                // closing
            }
        }
        attackers.clear();
    }

    /** The host from before the attack and a new one both do verified I/O; threads and RSS are flat. */
    void assertTargetSurvived() throws Exception {
        host.verifiedIo(2, 4);
        try (LegitimateHost newcomer = LegitimateHost.connect(target.address)) {
            newcomer.verifiedIo(3, 4);
        }
        closeAttackers();
        assertNull(ResourceGauge.flatAgainst(baseline, EXTRA_THREADS, EXTRA_RSS, 5000));
    }
}
