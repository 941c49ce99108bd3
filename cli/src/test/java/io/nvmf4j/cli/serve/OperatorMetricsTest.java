package io.nvmf4j.cli.serve;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.Provider;
import io.nvmf4j.config.QuickConfig;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.protocol.Nqn;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The operator's series: JVM/process/GC, build info, connected hosts and admin/I/O queues apart per subsystem. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OperatorMetricsTest {

    static final String NQN = "nqn.2026-12.io.nvmf4j:metrics";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:99999999-0000-0000-0000-000000000001";

    private static String scrape(int port) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        return r.body();
    }

    @Test
    void aConnectedHostShowsAsOneHostOneAdminQueueAndItsIoQueuesApart() throws Exception {
        int port = TestDaemons.freePort();
        int metricsPort = TestDaemons.freePort();
        TargetDaemon d = TargetDaemon.start(QuickConfig.builder().nqn(NQN).ram("1M").listen("127.0.0.1:" + port)
                .metricsPort(metricsPort).provider(Provider.SOFTIWARP).pollGroups(1).build(), false);
        try {
            String idle = scrape(metricsPort);
            for (String series : new String[] {"jvm_memory_used_bytes", "jvm_gc_", "process_cpu_usage",
                "process_uptime_seconds", "jvm_threads_live_threads", "nvmf4j_build_info{java=",
                "nvmf4j_connected_hosts{subsystem=\"" + NQN + "\"} 0.0",
                "nvmf4j_queues{subsystem=\"" + NQN + "\",type=\"admin\"} 0.0", "nvmf4j_rejected_total",
                "nvmf4j_buffer_pool_bytes{group=\"0\",state=\"used\"} 0.0",
                "nvmf4j_poll_group_queues{group=\"0\"} 0.0"}) {
                assertTrue(idle.contains(series), series + " in\n" + idle);
            }
            try (NvmeController host = NvmeController.connect(ConnectOptions.builder(
                    new InetSocketAddress("127.0.0.1", port), Nqn.parse(NQN)).host(HostIdentity.of(Nqn.parse(HOST)))
                    .provider("softiwarp").ioQueues(2).connectTimeout(Duration.ofSeconds(10)).build())) {
                try (var buffer = host.allocateBuffer(4096)) {
                    host.firstNamespace().readAsync(0, 1, buffer, 0).get(10, TimeUnit.SECONDS);
                }
                String busy = scrape(metricsPort);
                assertEveryDashboardSeriesIsServed(busy);
                assertTrue(busy.contains("nvmf4j_connected_hosts{subsystem=\"" + NQN + "\"} 1.0"), busy);
                // the poll group served the read: busy polls counted, its queues (admin + I/O) shown
                assertTrue(sample(busy, "nvmf4j_poll_group_polls_total{group=\"0\",kind=\"busy\"}")
                        > sample(idle, "nvmf4j_poll_group_polls_total{group=\"0\",kind=\"busy\"}"), busy);
                assertTrue(sample(busy, "nvmf4j_buffer_pool_bytes{group=\"0\",state=\"free\"}") > 0, busy);
                assertEquals(1 + host.ioQueueCount(), sample(busy, "nvmf4j_poll_group_queues{group=\"0\"}"), busy);
                assertTrue(busy.contains("nvmf4j_queues{subsystem=\"" + NQN + "\",type=\"admin\"} 1.0"), busy);
                assertTrue(busy.contains("nvmf4j_queues{subsystem=\"" + NQN + "\",type=\"io\"} " + host.ioQueueCount()
                        + ".0"), busy);
            }
        } finally {
            d.close();
        }
    }

    @Test
    void aNamespaceHasItsSeriesFromTheMomentItIsAddedNotFromItsFirstIo() throws Exception {
        int port = TestDaemons.freePort();
        int metricsPort = TestDaemons.freePort();
        TargetDaemon d = TargetDaemon.start(QuickConfig.builder().nqn(NQN).ram("1M").listen("127.0.0.1:" + port)
                .metricsPort(metricsPort).provider(Provider.SOFTIWARP).pollGroups(1).build(), false);
        try {
            String first = scrape(metricsPort);
            assertEquals(0.0, sample(first, "nvmf4j_io_operations_total{nsid=\"1\",op=\"read\",subsystem=\""
                    + NQN + "\"}"), "namespace 1 before any host connected\n" + first);
            assertEquals(0.0, sample(first, "nvmf4j_io_queue_depth{nsid=\"1\",subsystem=\"" + NQN + "\"}"));
            // what ctl add-namespace does, through the same live target
            long nsid = d.live().addNamespace(NQN, 0, null, 2L << 20, 0, null);
            String added = scrape(metricsPort);
            for (String op : new String[] {"read", "write", "flush", "other"}) {
                assertEquals(0.0, sample(added, "nvmf4j_io_operations_total{nsid=\"" + nsid + "\",op=\"" + op
                        + "\",subsystem=\"" + NQN + "\"}"), added);
            }
            assertEquals(0.0, sample(added, "nvmf4j_io_latency_seconds_count{nsid=\"" + nsid
                    + "\",op=\"write\",subsystem=\"" + NQN + "\"}"), added);
        } finally {
            d.close();
        }
    }

    /** The value of one series line ({@code name{labels} value}) in a scrape. */
    private static double sample(String scrape, String series) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        throw new AssertionError(series + " not in\n" + scrape);
    }

    /** packaging/grafana/nvmf4j.json is built from series this daemon really serves, nothing guessed. */
    private static void assertEveryDashboardSeriesIsServed(String scrape) throws Exception {
        java.nio.file.Path file = java.nio.file.Path.of("..", "packaging", "grafana", "nvmf4j.json");
        com.fasterxml.jackson.databind.JsonNode dash = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(file.toFile());
        java.util.regex.Pattern name = java.util.regex.Pattern.compile("\\b((?:nvmf4j|jvm|process|system)_[a-z_]+)");
        int checked = 0;
        for (com.fasterxml.jackson.databind.JsonNode panel : dash.path("panels")) {
            for (com.fasterxml.jackson.databind.JsonNode t : panel.path("targets")) {
                java.util.regex.Matcher m = name.matcher(t.path("expr").asText());
                while (m.find()) {
                    String series = m.group(1);
                    if (series.equals("jvm_gc_pause_seconds_sum")) {
                        continue; // only after a collection, which a test cannot force
                    }
                    assertTrue(scrape.contains(series), panel.path("title").asText() + ": " + series
                            + " is not served");
                    checked++;
                }
            }
        }
        assertTrue(checked > 20, "dashboard series checked: " + checked);
    }

    @Test
    void theMetricsAddressMustBeALiteral() {
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int exit = new picocli.CommandLine(new ServeCli(new java.io.PrintStream(err, true))).execute("--ram", "1M",
                "--nqn", NQN, "--metrics-address", "metrics.example", "--no-rpc");
        assertEquals(1, exit);
        assertTrue(err.toString(UTF_8).contains("--metrics-address"), err.toString(UTF_8));
    }
}
