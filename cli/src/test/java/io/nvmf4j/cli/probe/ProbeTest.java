package io.nvmf4j.cli.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.cli.serve.TargetDaemon;
import io.nvmf4j.cli.serve.TestDaemons;
import io.nvmf4j.config.Provider;
import io.nvmf4j.config.QuickConfig;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The lab probe against the Java target on 127.0.0.1: discovery picks the NVM subsystem, then write/read verify. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProbeTest {

    @Test
    void probeDiscoversConnectsAndVerifiesData() throws Exception {
        int port = TestDaemons.freePort();
        TargetDaemon daemon = TargetDaemon.start(QuickConfig.builder().nqn("nqn.2026-12.io.nvmf4j:probe").ram("4M")
                .listen("127.0.0.1:" + port).provider(Provider.SOFTIWARP).pollGroups(1).build(), false);
        try {
            assertEquals(0, Probe.run("127.0.0.1:" + port, null, "softiwarp", true));
        } finally {
            daemon.close();
        }
    }
}
