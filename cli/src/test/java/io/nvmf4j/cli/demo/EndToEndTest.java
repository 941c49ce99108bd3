package io.nvmf4j.cli.demo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.cli.FabricArgs;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands against a real nvmf4j target in this JVM (16 MiB RAM namespace, 512-byte blocks) over softiwarp on
 * loopback TCP: what a user types, checked on the bytes and the exit codes.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EndToEndTest {

    static final long BYTES = 16L << 20;
    static EmbeddedTarget target;
    static String port;

    @BeforeAll
    static void startTarget() throws Exception {
        target = EmbeddedTarget.start(BYTES, 512, "softiwarp", 0, 1);
        port = Integer.toString(target.address().getPort());
    }

    @AfterAll
    static void stopTarget() {
        if (target != null) {
            target.close();
        }
    }

    private static String[] at(String... args) {
        return FabricArgs.at(target.address().getPort(), args);
    }

    @Test
    void discoverListsTheSubsystemLikeNvmeDiscover() {
        CliRunner.Result r = CliRunner.run(at("discover"));
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("Discovery Log Number of Records "), r.out());
        assertTrue(r.out().contains("subtype: nvme subsystem\n"), r.out());
        assertTrue(r.out().contains("subnqn:  " + EmbeddedTarget.SUBSYSTEM.value() + "\n"), r.out());
        assertTrue(r.out().contains("trsvcid: " + port + "\n"), r.out());
        assertTrue(r.out().contains("traddr:  127.0.0.1\n"), r.out());
    }

    @Test
    void identifyJsonNamesTheSubsystemAndTheRamNamespace() throws Exception {
        CliRunner.Result r = CliRunner.run(at("identify", "--json"));
        assertEquals(0, r.exitCode(), r.err());
        JsonNode root = new ObjectMapper().readTree(r.out());
        assertEquals(EmbeddedTarget.SUBSYSTEM.value(), root.get("controller").get("subnqn").asText());
        assertEquals("nvmf4j demo RAM disk", root.get("controller").get("mn").asText());
        JsonNode ns = root.get("namespaces").get(0);
        assertEquals(1, ns.get("nsid").asLong());
        assertEquals(BYTES / 512, ns.get("nsze").asLong());
        assertEquals(512, ns.get("block_size").asLong());
    }

    @Test
    void identifyTextShowsTheInUseLbaFormat() {
        CliRunner.Result r = CliRunner.run(at("identify", "-n", EmbeddedTarget.SUBSYSTEM.value()));
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().startsWith("NVME Identify Controller:\n"), r.out());
        assertTrue(r.out().contains("subnqn    : " + EmbeddedTarget.SUBSYSTEM.value()), r.out());
        assertTrue(r.out().contains("nsze    : 0x" + Long.toHexString(BYTES / 512) + "\n"), r.out());
        assertTrue(r.out().contains("lbads:9  rp:0 (in use)"), r.out());
    }

    @Test
    void aFileWrittenThenReadBackIsTheSameBytesPaddedToTheBlock(@TempDir Path dir) throws Exception {
        byte[] data = new byte[100 * 1024 + 100];
        new Random(42).nextBytes(data);
        Path in = Files.write(dir.resolve("in.bin"), data);
        CliRunner.Result w = CliRunner.run(at("write", "--start-block", "1000", "--data", in.toString()));
        assertEquals(0, w.exitCode(), w.err());
        long blocks = (data.length + 511L) / 512;
        assertTrue(w.err().startsWith("write: Success, nsid 1, " + blocks + " blocks of 512 bytes at LBA 1000"),
                "nvme-cli's 'write: Success' on stderr: " + w.err());
        Path out = dir.resolve("out.bin");
        CliRunner.Result r = CliRunner.run(at("read", "--start-block", "1000", "--block-count",
                Long.toString(blocks - 1), "--data", out.toString(), "--json"));
        assertEquals(0, r.exitCode(), r.err());
        byte[] back = Files.readAllBytes(out);
        assertEquals(blocks * 512, back.length);
        assertArrayEquals(data, Arrays.copyOf(back, data.length));
        for (int i = data.length; i < back.length; i++) {
            assertEquals(0, back[i], "padding at " + i);
        }
        assertEquals(blocks * 512, new ObjectMapper().readTree(r.out()).get("bytes").asLong());
    }

    @Test
    void aWritePastTheEndIsOneLineWithTheNvmeStatus(@TempDir Path dir) throws Exception {
        Path in = Files.write(dir.resolve("two.bin"), new byte[1024]);
        long last = BYTES / 512 - 1;
        CliRunner.Result r = CliRunner.run(at("write", "--start-block", Long.toString(last), "--data", in.toString()));
        assertEquals(1, r.exitCode());
        assertTrue(r.err().matches("nvmf4j: write failed: LBA_RANGE \\(0x[0-9a-f]{4}\\): LBA Out of Range\n"),
                r.err());
    }

    @Test
    void twoSecondsOfVerifiedRandomReadWriteCheckEveryRead() throws Exception {
        CliRunner.Result r = CliRunner.run(at("perf", "-w", "randrw", "-M", "50", "-q", "8", "-o", "4k", "-t", "2",
                "--ramp", "0", "--verify", "--json"));
        assertEquals(0, r.exitCode(), r.err());
        JsonNode o = new ObjectMapper().readTree(r.out());
        assertTrue(o.get("read").get("ios").asLong() > 0, r.out());
        assertTrue(o.get("write").get("ios").asLong() > 0, r.out());
        assertTrue(o.get("verified_blocks").asLong() >= o.get("read").get("ios").asLong() * 8,
                "every block of every read verified: " + r.out());
        assertTrue(r.err().contains("perf [prefill]"), "prefill progress on stderr: " + r.err());
    }

    @Test
    void twoQueuesVerifyTheirOwnSlicesOfTheNamespace() throws Exception {
        CliRunner.Result r = CliRunner.run(at("perf", "--queues", "2", "-q", "4", "-o", "8k", "-w", "randrw", "-t",
                "1", "--ramp", "0", "--verify", "--size", "4m", "--json"));
        assertEquals(0, r.exitCode(), r.err());
        JsonNode o = new ObjectMapper().readTree(r.out());
        assertEquals(2, o.get("queues").asInt(), r.out());
        assertTrue(o.get("verified_blocks").asLong() > 0, r.out());
    }

    @Test
    void prometheusTextCanBeScrapedWhilePerfRuns() throws Exception {
        int metricsPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            metricsPort = s.getLocalPort();
        }
        java.util.concurrent.CompletableFuture<CliRunner.Result> run = java.util.concurrent.CompletableFuture
                .supplyAsync(() -> CliRunner.run(at("perf", "-w", "randread", "-q", "4", "-t", "3", "--ramp", "0",
                        "--metrics-port", Integer.toString(metricsPort))));
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        String body = "";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!run.isDone() && System.nanoTime() < deadline) {
            try {
                java.net.http.HttpResponse<String> resp = http.send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                        .timeout(java.time.Duration.ofSeconds(5)).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                if (resp.statusCode() == 200 && resp.body().contains("nvmf4j_perf_ios_total{")
                        && resp.body().matches("(?s).*nvmf4j_perf_ios_total\\{op=\"read\".*\\} [1-9].*")) {
                    body = resp.body();
                    break;
                }
            } catch (java.io.IOException notYet) {
                // the endpoint starts with the command
            }
            Thread.sleep(200);
        }
        CliRunner.Result r = run.get(60, TimeUnit.SECONDS);
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(body.contains("nvmf4j_perf_latency_seconds"), body);
        assertTrue(r.err().contains("perf: Prometheus metrics on http://127.0.0.1:" + metricsPort + "/metrics"),
                r.err());
    }

    @Test
    void perfFioJsonIsReadByAFioParserAndTakesSpdksTransportId() throws Exception {
        String[] args = {"perf", "-r", "trtype:RDMA adrfam:IPv4 traddr:127.0.0.1 trsvcid:" + port, "-w", "randrw",
            "-q", "4", "-t", "1", "-a", "0", "--output-format", "fio-json", "--provider", "softiwarp"};
        CliRunner.Result r = CliRunner.run(args);
        assertEquals(0, r.exitCode(), r.err());
        JsonNode job = new ObjectMapper().readTree(r.out()).get("jobs").get(0);
        assertTrue(job.get("read").get("iops").asDouble() > 0, r.out());
        assertTrue(job.get("write").get("clat_ns").get("percentile").has("99.000000"), r.out());
        assertEquals("50", job.get("job options").get("rwmixread").asText(), "fio's default -M");
    }

    @Test
    void perfPrintsTheTable() {
        CliRunner.Result r = CliRunner.run(at("perf", "-w", "randread", "-q", "4", "-t", "1", "--ramp", "0"));
        assertEquals(0, r.exitCode(), r.err());
        String[] lines = r.out().split("\n");
        assertTrue(lines[1].matches("latency in us\\s+IOPS\\s+MiB/s\\s+avg\\s+p50\\s+p90\\s+p99\\s+p99\\.9\\s+"
                + "p99\\.99\\s+max"), lines[1]);
        assertTrue(lines[2].startsWith("read "), lines[2]);
        assertTrue(r.err().contains("perf [  1/1 s] randread: "), r.err());
    }

    @Test
    void anAbsentTargetIsOneLineAndExitCode1WithinSeconds() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        long start = System.nanoTime();
        CliRunner.Result r = CliRunner.run("identify", "-a", "127.0.0.1", "-s", Integer.toString(closed), "-n",
                "nqn.2026-12.io.nvmf4j:absent", "--provider", "softiwarp");
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(1, r.exitCode());
        assertEquals("nvmf4j: cannot connect to 127.0.0.1:" + closed + ": connection refused\n", r.err());
        assertEquals("", r.out());
        assertTrue(ms < 6000, "took " + ms + " ms");
    }

    @Test
    void verboseAddsTheCauseAndTheStackTrace() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        CliRunner.Result r = CliRunner.run("discover", "-a", "127.0.0.1", "-s", Integer.toString(closed),
                "--provider", "softiwarp", "--verbose");
        assertEquals(1, r.exitCode());
        assertTrue(r.err().startsWith("nvmf4j: cannot connect to 127.0.0.1:" + closed + ": connection refused\n"),
                r.err());
        assertTrue(r.err().contains("caused by: "), r.err());
        assertTrue(r.err().contains("\tat "), r.err());
    }

    @Test
    void theDemoRunsItsSeriesAndExitsZero() {
        CliRunner.Result r = CliRunner.run("demo", "--size", "16", "-t", "0.5", "--warmup", "0.5");
        assertEquals(0, r.exitCode(), r.err());
        for (String row : new String[] {"4k-randrw-qd32-verify read", "4k-randrw-qd32-verify write",
            "4k-randread-qd1 read", "4k-randread-qd32 read", "128k-read-qd8 read"}) {
            assertTrue(r.out().contains(row), row + " in\n" + r.out());
        }
        assertTrue(r.out().contains("blocks read back and verified, no mismatch"), r.out());
    }
}
