package io.nvmf4j.cli.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.cli.LoopbackTarget;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubsystemNamespace;
import io.nvmf4j.target.SubsystemNqn;
import io.nvmf4j.target.backend.RamBackend;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A subsystem named {@code testnqn}, nvmetcli's own example: Linux nvmet serves it and nvme-cli connects to it with
 * {@code -n testnqn}, so every host command here must too, and discover must list it.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NonStandardSubsystemNameTest {

    static final String NAME = "testnqn";
    static LoopbackTarget target;

    @BeforeAll
    static void startTargetServingTestnqn() throws Exception {
        Subsystem s = Subsystem.builder(SubsystemNqn.of(NAME)).serial("NVMF4JTESTNQN01").allowAnyHost(true).build();
        s.addNamespace(SubsystemNamespace.of(1, RamBackend.allocate(4L << 20, 512)));
        target = LoopbackTarget.serving(s);
    }

    @AfterAll
    static void stop() {
        if (target != null) {
            target.close();
        }
    }

    private static String[] at(String... args) {
        return target.at(args);
    }

    @Test
    void discoverListsTheEntryAsNvmeCliWould() throws Exception {
        CliRunner.Result r = CliRunner.run(at("discover", "-o", "json"));
        assertEquals(0, r.exitCode(), r.err());
        JsonNode records = new ObjectMapper().readTree(r.out()).get("records");
        JsonNode nvm = null;
        for (JsonNode record : records) {
            if ("nvme subsystem".equals(record.get("subtype").asText())) {
                nvm = record;
            }
        }
        assertEquals(NAME, nvm == null ? null : nvm.get("subnqn").asText(), r.out());
        CliRunner.Result text = CliRunner.run(at("discover"));
        assertEquals(0, text.exitCode(), text.err());
        assertTrue(text.out().contains("subnqn:  " + NAME + "\n"), text.out());
    }

    @Test
    void idCtrlWithNqnTestnqnConnectsAndReportsIt() throws Exception {
        CliRunner.Result r = CliRunner.run(at("id-ctrl", "--nqn", NAME, "-o", "json"));
        assertEquals(0, r.exitCode(), r.err());
        assertEquals(NAME, new ObjectMapper().readTree(r.out()).get("subnqn").asText());
    }

    @Test
    void withoutNqnTheHostTakesTestnqnFromTheDiscoveryLog() throws Exception {
        CliRunner.Result r = CliRunner.run(at("id-ctrl", "-o", "json"));
        assertEquals(0, r.exitCode(), r.err());
        assertEquals(NAME, new ObjectMapper().readTree(r.out()).get("subnqn").asText());
    }

    @Test
    void perfRunsAgainstTestnqn() throws Exception {
        CliRunner.Result r = CliRunner.run(at("perf", "--nqn", NAME, "-w", "randread", "-q", "4", "-o", "4k",
                "-t", "1", "--ramp", "0", "--json"));
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(new ObjectMapper().readTree(r.out()).get("read").get("ios").asLong() > 0, r.out());
    }

    @Test
    void whatLinuxRefusesIsStillOneUsageLine() {
        CliRunner.Result empty = CliRunner.run(at("id-ctrl", "--nqn", ""));
        assertEquals(FailureReport.EXIT_USAGE, empty.exitCode());
        assertEquals("nvmf4j: --nqn '' is not a usable NQN: empty\n", empty.err());
        CliRunner.Result tooLong = CliRunner.run(at("id-ctrl", "--nqn", "x".repeat(224)));
        assertEquals(FailureReport.EXIT_USAGE, tooLong.exitCode());
        assertTrue(tooLong.err().endsWith("is not a usable NQN: 224 bytes of UTF-8, more than 223\n"),
                tooLong.err());
    }
}
