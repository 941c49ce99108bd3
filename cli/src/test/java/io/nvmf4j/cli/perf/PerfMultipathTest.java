package io.nvmf4j.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.log.AnaState;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code perf} over two paths ({@code --traddr A:P1,A:P2}) to one subsystem behind two ports of an nvmf4j target on
 * 127.0.0.1: verified random read/write keeps going without an error while the ANA state of the first path turns
 * inaccessible and back, and both paths carry I/O.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PerfMultipathTest {

    static final String NQN = "nqn.2026-12.io.nvmf4j:perf-multipath";
    private NvmeTarget target;
    private RdmaTransport transport;
    private final Port[] ports = new Port[2];
    private final int[] tcp = new int[2];

    @BeforeEach
    void start() throws Exception {
        target = new NvmeTarget();
        Subsystem s = Subsystem.builder(Nqn.parse(NQN)).serial("NVMF4JPMP0001").allowAnyHost(true).build();
        s.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(1, RamBackend.allocate(8L << 20, 512)));
        target.addSubsystem(s);
        transport = RdmaTransport.open(target, RdmaTransportOptions.builder().provider("softiwarp").pollGroups(1)
                .spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(8L << 20).completionQueueEntries(4096)
                .build(), TransportObserver.NONE);
        for (int i = 0; i < 2; i++) {
            ports[i] = Port.rdma(i + 1, "127.0.0.1", "0").build();
            target.addPort(ports[i]);
            ports[i].addSubsystem(s);
            tcp[i] = transport.listen(ports[i]).getPort();
        }
    }

    @AfterEach
    void stop() {
        transport.close();
        target.close();
    }

    @Test
    void verifiedPerfOverTwoPathsSurvivesAnInaccessiblePath() throws Exception {
        CompletableFuture<CliRunner.Result> run = CompletableFuture.supplyAsync(() -> CliRunner.run("perf",
                "--traddr", "127.0.0.1:" + tcp[0] + ",127.0.0.1:" + tcp[1], "--nqn", NQN, "--provider", "softiwarp",
                "-w", "randrw", "-M", "50", "-q", "8", "-o", "4k", "-t", "3", "--ramp", "0", "--verify", "--json"));
        Thread.sleep(1500);
        ports[0].anaState(Port.DEFAULT_ANA_GROUP, AnaState.INACCESSIBLE);
        Thread.sleep(700);
        ports[0].anaState(Port.DEFAULT_ANA_GROUP, AnaState.OPTIMIZED);
        CliRunner.Result r = run.get(60, TimeUnit.SECONDS);
        assertEquals(0, r.exitCode(), r.err());
        JsonNode o = new ObjectMapper().readTree(r.out());
        assertTrue(o.get("read").get("ios").asLong() > 0, r.out());
        assertTrue(o.get("verified_blocks").asLong() >= o.get("read").get("ios").asLong() * 8, r.out());
        assertTrue(r.err().contains("perf: 2 paths to " + NQN + ", nsid 1 ANA [optimized, optimized], policy "
                + "round-robin"), r.err());
        Matcher m = Pattern.compile("perf: I/Os per path \\[(\\d+), (\\d+)\\]").matcher(r.err());
        assertTrue(m.find(), r.err());
        assertTrue(Long.parseLong(m.group(1)) > 0 && Long.parseLong(m.group(2)) > 0, m.group());
    }
}
