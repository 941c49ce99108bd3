package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.QuickConfig;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.rdma.RdmaCmAccept;
import io.nvmf4j.protocol.rdma.RdmaCmRequest;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.VerbsException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code nvmf4j serve}: configuration errors, and a daemon that accepts an RDMA connection and serves metrics. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServeCliTest {

    static final String NQN = "nqn.2026-12.io.nvmf4j:serve-test";

    @TempDir
    Path dir;

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String run(int expectedExit, String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = new CommandLine(new ServeCli(new PrintStream(err, true, StandardCharsets.UTF_8)))
                .execute(args);
        String text = err.toString(StandardCharsets.UTF_8);
        assertEquals(expectedExit, exit, text);
        return text;
    }

    @Test
    void quickFormWithoutNqnPrintsTheProblemAndExits1WithoutStackTrace() {
        String err = run(1, "--ram", "1M");
        assertTrue(err.contains("--nqn"), err);
        assertFalse(err.contains("\tat "), "no stack trace: " + err);
    }

    @Test
    void missingFileIsNamed() {
        String err = run(1, "--file", dir.resolve("absent.img").toString(), "--nqn", NQN);
        assertTrue(err.contains("--file"), err);
        assertTrue(err.contains("absent.img"), err);
    }

    @Test
    void aRamNamespaceLargerThanTheMachineIsOneLineNotAStackTrace() {
        String err = run(1, "--ram", "10T", "--nqn", NQN, "--no-rpc", "--listen", "127.0.0.1:1");
        assertTrue(err.startsWith("nvmf4j serve: RAM namespace of 10 TiB (10995116277760 bytes) does not fit: "),
                err);
        assertEquals(1, err.strip().lines().count(), err);
    }

    @Test
    void aMetricsPortInUseNamesTheAddressAndPort() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            int busy = taken.getLocalPort();
            String err = run(1, "--ram", "1M", "--nqn", NQN, "--no-rpc", "--listen", "127.0.0.1:" + freePort(),
                    "--provider", "softiwarp", "--metrics-port", Integer.toString(busy));
            assertTrue(err.contains("nvmf4j serve: metrics endpoint 127.0.0.1:" + busy
                    + ": Address already in use (--metrics-port for another)"), err);
        }
    }

    @Test
    void unknownProviderIsRefused() {
        String err = run(1, "--ram", "1M", "--nqn", NQN, "--provider", "carrier-pigeon");
        assertTrue(err.contains("--provider"), err);
    }

    @Test
    void configFileProblemsNameTheFieldAndLine() throws Exception {
        Path cfg = dir.resolve("bad.json");
        Files.writeString(cfg, """
                {
                  "hosts": [],
                  "ports": [ { "portid": 1, "addr": { "trtype": "rdma", "adrfam": "ipv4",
                     "traddr": "127.0.0.1", "trsvcid": "99999" }, "subsystems": [] } ],
                  "subsystems": []
                }
                """);
        String err = run(1, "--config", cfg.toString());
        assertTrue(err.contains("bad.json:"), err);
        assertTrue(err.contains("trsvcid"), err);
        assertFalse(err.contains("\tat "), err);
    }

    @Test
    void aConfigWhosePortsAreAllSkippedDoesNotStartADaemonThatServesNothing() throws Exception {
        Path cfg = dir.resolve("loop-only.json");
        Files.writeString(cfg, """
                {
                  "hosts": [],
                  "ports": [ { "portid": 1, "addr": { "trtype": "loop", "adrfam": "",
                     "traddr": "", "trsvcid": "" }, "subsystems": [ "%s" ] } ],
                  "subsystems": [ { "nqn": "%s", "attr": { "allow_any_host": "1" }, "allowed_hosts": [],
                     "namespaces": [] } ]
                }
                """.formatted(NQN, NQN));
        String err = run(1, "--config", cfg.toString(), "--no-rpc");
        assertTrue(err.contains("loop-only.json: no port to listen on"), err);
        assertFalse(err.contains("listening on"), err);
        assertFalse(err.contains("\tat "), err);
    }

    @Test
    void daemonAcceptsAnRdmaConnectionServesMetricsAndStopsCleanly() throws Exception {
        int port = freePort();
        int metricsPort = freePort();
        TargetDaemon daemon = TargetDaemon.start(QuickConfig.builder().nqn(NQN).ram("1M")
                .listen("127.0.0.1:" + port).metricsPort(metricsPort).provider(io.nvmf4j.config.Provider.SOFTIWARP)
                .pollGroups(1).build(), false);
        try (RdmaDevice device = RdmaProviders.byName("softiwarp").openDevice(null);
             ProtectionDomain pd = device.allocatePd();
             CompletionQueue cq = device.createCompletionQueue(256)) {
            try {
                try (RdmaConnection c = device.connectionManager().connect(new InetSocketAddress("127.0.0.1", port),
                        new ConnectParams(pd, cq, cq, QueuePairAttributes.defaults(),
                                RdmaCmRequest.of(QueueId.of(0), 32, 31).toBytes()), Duration.ofSeconds(10))) {
                    RdmaCmAccept accept = RdmaCmAccept.decode(MemorySegment.ofArray(c.peerPrivateData()));
                    assertEquals(32, accept.crqsize());
                }
                HttpResponse<String> metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + metricsPort + "/metrics")).timeout(Duration.ofSeconds(10))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, metrics.statusCode());
                assertTrue(metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
                assertTrue(metrics.body().contains("nvmf4j_connections{subsystem=\"" + NQN + "\"}"),
                        metrics.body());
            } finally {
                daemon.close();
            }
            VerbsException refused = assertThrows(VerbsException.class, () -> device.connectionManager().connect(
                    new InetSocketAddress("127.0.0.1", port), new ConnectParams(pd, cq, cq,
                            QueuePairAttributes.defaults(), RdmaCmRequest.of(QueueId.of(0), 32, 31).toBytes()),
                    Duration.ofSeconds(5)).close());
            assertTrue(refused.getMessage() != null);
        }
    }

    @Test
    void commandLineSettingsApplyToAConfigFileAndWinOverItsNvmf4jSection() throws Exception {
        Path disk = dir.resolve("disk.img");
        Files.write(disk, new byte[1 << 20]);
        Path json = dir.resolve("saveconfig.json");
        Files.writeString(json, """
                {
                  "hosts": [],
                  "ports": [ { "portid": 1, "referrals": [], "subsystems": [ "testnqn" ],
                               "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "4420",
                                         "treq": "not specified" } } ],
                  "subsystems": [ { "nqn": "testnqn", "allowed_hosts": [], "attr": { "allow_any_host": "1" },
                                    "namespaces": [ { "nsid": 1, "enable": 1, "device": { "path": "%s" } } ] } ],
                  "nvmf4j": { "metrics_port": 9999, "poll_groups": { "count": 1 } }
                }
                """.formatted(disk));
        ServeCli plain = new ServeCli(System.err);
        new CommandLine(plain).parseArgs("--config", json.toString());
        assertEquals(9999, plain.load().config().nvmf4j().metricsPort());

        ServeCli overridden = new ServeCli(System.err);
        new CommandLine(overridden).parseArgs("--config", json.toString(), "--metrics-port", "9464", "--poll-groups", "2");
        var settings = overridden.load().config().nvmf4j();
        assertEquals(9464, settings.metricsPort());
        assertEquals(2, settings.pollGroups());
        assertEquals("testnqn", overridden.load().config().subsystems().get(0).nqn());
    }

    @Test
    void aPeerLimitOfZeroIsAUsageErrorNamingTheFlag() {
        String err = run(1, "--ram", "1M", "--nqn", NQN, "--max-unconnected-per-address", "0");
        assertTrue(err.contains("--max-unconnected-per-address must be at least 1"), err);
        assertFalse(err.contains("\tat "), err);
    }

    @Test
    void peerLimitFlagsReachTheTransportOptions() {
        ServeCli serve = new ServeCli(System.err);
        new CommandLine(serve).parseArgs("--ram", "1M", "--nqn", NQN, "--connect-timeout", "3",
                "--rdma-read-timeout", "4", "--max-unconnected-per-address", "5", "--queue-buffer-limit", "2m");
        var options = serve.limits.apply(io.nvmf4j.target.rdma.RdmaTransportOptions.defaults());
        assertEquals(Duration.ofSeconds(3), options.connectTimeout());
        assertEquals(Duration.ofSeconds(4), options.readTimeout());
        assertEquals(5, options.maxUnconnectedPerAddress());
        assertEquals(io.nvmf4j.target.rdma.RdmaTransportOptions.DEFAULT_MAX_UNCONNECTED_PER_GROUP,
                options.maxUnconnectedPerGroup());
        assertEquals(2L << 20, options.queueBufferBytes());
    }

    @Test
    void controllerShareFlagsWinOverTheConfigFileSection() {
        ServeCli serve = new ServeCli(System.err);
        new CommandLine(serve).parseArgs("--ram", "1M", "--nqn", NQN, "--max-controllers-per-host", "3");
        var s = serve.limits.apply(io.nvmf4j.config.Nvmf4jSettings.defaults().withControllerShare(7, 9));
        assertEquals(3, s.maxControllersPerHost());
        assertEquals(9, s.maxControllersPerAddress(), "unset flag: the file's value");
        String err = run(1, "--ram", "1M", "--nqn", NQN, "--max-controllers-per-address", "0");
        assertTrue(err.contains("--max-controllers-per-address must be at least 1"), err);
    }

    @Test
    void aTcpConnectionThatNeverSendsMpaIsCountedInTheRejectedMetric() throws Exception {
        int port = freePort();
        int metricsPort = freePort();
        String previous = System.setProperty("nvmf4j.softiwarp.mpaTimeoutMillis", "300");
        TargetDaemon daemon;
        try {
            daemon = TargetDaemon.start(QuickConfig.builder().nqn(NQN).ram("1M").listen("127.0.0.1:" + port)
                    .metricsPort(metricsPort).provider(io.nvmf4j.config.Provider.SOFTIWARP).pollGroups(1).build(),
                    false);
        } finally {
            if (previous == null) {
                System.clearProperty("nvmf4j.softiwarp.mpaTimeoutMillis");
            } else {
                System.setProperty("nvmf4j.softiwarp.mpaTimeoutMillis", previous);
            }
        }
        try (java.net.Socket silent = new java.net.Socket("127.0.0.1", port)) {
            String series = "nvmf4j_rejected_total{reason=\"mpa_timeout\"} 1.0";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String body = "";
            while (System.nanoTime() < deadline && !body.contains(series)) {
                Thread.sleep(100);
                body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + metricsPort + "/metrics")).timeout(Duration.ofSeconds(10))
                        .build(), HttpResponse.BodyHandlers.ofString()).body();
            }
            assertTrue(body.contains(series), body);
            assertTrue(body.contains("nvmf4j_rejected_total{reason=\"connect_timeout\"} 0.0"), body);
            assertEquals(-1, silent.getInputStream().read(), "the target closed the silent connection");
        } finally {
            daemon.close();
        }
    }

    @Test
    void backendIoFlagsWinOverTheConfigAndABadModeIsOneUsageLine() throws Exception {
        ServeCli serve = new ServeCli(System.err);
        new CommandLine(serve).parseArgs("--ram", "1M", "--nqn", NQN, "--backend-io", "threads",
                "--backend-timeout", "7");
        var settings = serve.load().config().nvmf4j();
        assertEquals("threads", settings.backendIo());
        assertEquals(7000, settings.backendTimeoutMillis());
        assertEquals(io.nvmf4j.target.backend.BackendIoMode.THREADS,
                TargetDaemon.backendSettings(settings).mode());

        String err = run(1, "--ram", "1M", "--nqn", NQN, "--backend-io", "aio");
        assertTrue(err.contains("backend I/O must be auto, uring or threads, not \"aio\""), err);
        assertFalse(err.contains("\tat "), "no stack trace: " + err);
    }
}
