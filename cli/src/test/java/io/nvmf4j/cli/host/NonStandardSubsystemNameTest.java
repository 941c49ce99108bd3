package io.nvmf4j.cli.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.target.Namespace;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubsystemNqn;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Arrays;
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
    static NvmeTarget target;
    static RdmaTransport transport;
    static String port;

    @BeforeAll
    static void startTargetServingTestnqn() throws Exception {
        target = new NvmeTarget();
        Subsystem s = Subsystem.builder(SubsystemNqn.of(NAME)).serial("NVMF4JTESTNQN01").allowAnyHost(true).build();
        s.addNamespace(Namespace.of(1, RamBackend.allocate(4L << 20, 512)));
        target.addSubsystem(s);
        transport = RdmaTransport.open(target, RdmaTransportOptions.defaults().withProvider("softiwarp")
                .withPollGroups(1).withSpinBudget(Duration.ofNanos(20_000)), TransportObserver.NONE);
        int free;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            free = probe.getLocalPort();   // a real port, so the discovery log names it
        }
        Port p = Port.rdma(1, "127.0.0.1", Integer.toString(free)).build();
        target.addPort(p);
        p.addSubsystem(s);
        port = Integer.toString(transport.listen(p).getPort());
    }

    @AfterAll
    static void stop() {
        if (transport != null) {
            transport.close();
        }
        if (target != null) {
            target.close();
        }
    }

    private static String[] at(String... args) {
        String[] fabric = {"--traddr", "127.0.0.1", "--trsvcid", port, "--provider", "softiwarp"};
        String[] all = Arrays.copyOf(args, args.length + fabric.length);
        System.arraycopy(fabric, 0, all, args.length, fabric.length);
        return all;
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
