package io.nvmf4j.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code perf --trace-outliers}: the slow I/Os of the measured window, with the monotonic time they were submitted,
 * for laying a latency tail beside both JVMs' safepoint and GC logs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OutlierTraceTest {

    @TempDir
    Path dir;

    @Test
    void keepsOnlyTheIosAtOrAboveTheThresholdInSubmissionOrder() throws Exception {
        OutlierTrace trace = new OutlierTrace(50_000, 8);
        trace.record(300, 49_999, true);
        trace.record(200, 50_000, true);
        trace.record(100, 80_000, false);
        Path csv = dir.resolve("o.csv");
        trace.write(csv);
        List<String> lines = Files.readAllLines(csv);
        assertEquals(2, trace.count());
        assertTrue(lines.get(0).startsWith("# nvmf4j perf outliers: latency >= 50000 ns; 2 seen, 0 not kept"),
                lines.get(0));
        assertEquals(List.of("submit_ns,latency_ns,op", "100,80000,write", "200,50000,read"),
                lines.subList(1, lines.size()));
    }

    @Test
    void outliersPastTheCapacityAreCountedNotKept() throws Exception {
        OutlierTrace trace = new OutlierTrace(0, 2);
        for (int i = 0; i < 5; i++) {
            trace.record(i, 10, true);
        }
        assertEquals(5, trace.count());
        assertEquals(2, trace.kept());
        Path csv = dir.resolve("o.csv");
        trace.write(csv);
        assertTrue(Files.readAllLines(csv).get(0).contains("5 seen, 3 not kept"));
        assertEquals(4, Files.readAllLines(csv).size());
    }

    @Test
    void perfWithAZeroThresholdTracesEveryMeasuredIo() throws Exception {
        String nqn = "nqn.2026-12.io.nvmf4j:outliers";
        NvmeTarget target = new NvmeTarget();
        Subsystem s = Subsystem.builder(Nqn.parse(nqn)).serial("NVMF4JOUT0001").allowAnyHost(true).build();
        s.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(1, RamBackend.allocate(8L << 20, 512)));
        target.addSubsystem(s);
        RdmaTransport transport = RdmaTransport.open(target, RdmaTransportOptions.builder().provider("softiwarp")
                .pollGroups(1).spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(8L << 20)
                .completionQueueEntries(4096).build(), TransportObserver.NONE);
        try {
            Port port = Port.rdma(1, "127.0.0.1", "0").build();
            target.addPort(port);
            port.addSubsystem(s);
            int tcp = transport.listen(port).getPort();
            Path csv = dir.resolve("outliers.csv");
            long before = System.nanoTime();
            CliRunner.Result r = CliRunner.run("perf", "--traddr", "127.0.0.1", "--trsvcid", Integer.toString(tcp),
                    "--nqn", nqn, "--provider", "softiwarp", "-w", "randread", "-q", "4", "-o", "4k", "-t", "1",
                    "--ramp", "0", "--json", "--trace-outliers", csv.toString(), "--outlier-us", "0");
            long after = System.nanoTime();
            assertEquals(0, r.exitCode(), r.err());
            JsonNode o = new ObjectMapper().readTree(r.out());
            long ios = o.get("read").get("ios").asLong();
            assertTrue(ios > 0, r.out());
            List<String> lines = Files.readAllLines(csv);
            assertEquals(ios + 2, lines.size(), "one line per measured I/O after the comment and the header");
            long previous = Long.MIN_VALUE;
            for (String line : lines.subList(2, lines.size())) {
                String[] f = line.split(",");
                long submit = Long.parseLong(f[0]);
                // CLOCK_MONOTONIC, the same clock as this JVM's System.nanoTime (perf ran in this process here)
                assertTrue(submit >= before && submit <= after, line);
                assertTrue(submit >= previous, "sorted by submission: " + line);
                assertTrue(Long.parseLong(f[1]) > 0, line);
                assertEquals("read", f[2]);
                previous = submit;
            }
            assertTrue(r.err().contains("perf: " + ios + " I/Os of " + ios + " took >= 0 us; " + ios
                    + " written to " + csv), r.err());
        } finally {
            transport.close();
            target.close();
        }
    }
}
