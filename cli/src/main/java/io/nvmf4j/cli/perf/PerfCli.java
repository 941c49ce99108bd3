package io.nvmf4j.cli.perf;

import io.nvmf4j.cli.DedicatedPollers;
import io.nvmf4j.cli.MetricsEndpoint;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.CommandFailure;
import io.nvmf4j.cli.host.CommandLogging;
import io.nvmf4j.cli.host.Connections;
import io.nvmf4j.cli.host.Json;
import io.nvmf4j.cli.host.LongConnectFlags;
import io.nvmf4j.cli.host.UsageProblem;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.MultipathController;
import io.nvmf4j.initiator.MultipathNamespace;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nvmf4j perf}: a load generator in the spirit of SPDK's {@code spdk_nvme_perf} and fio, with SPDK's option
 * letters ({@code -q} depth, {@code -o} size, {@code -w} pattern, {@code -M} read share, {@code -t} time,
 * {@code -a} warm-up, {@code -P} queue pairs, {@code -r} transport ID) and fio's defaults where SPDK has none
 * ({@code -M} 50, fio's {@code rwmixread}).
 */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "perf", sortOptions = false,
        description = {"Measure IOPS, bandwidth and latency percentiles against a remote namespace "
                + "(like SPDK's spdk_nvme_perf / fio), with spdk_nvme_perf's option letters.",
            "Example: nvmf4j perf \\",
            "      -r 'trtype:RDMA adrfam:IPv4 traddr:127.0.0.1 trsvcid:4420' \\",
            "      -q 32 -o 4096 -w randread -t 10 -a 1 -P 2",
            "As in spdk_nvme_perf, -a is the warm-up time, not the address: the target is -r or --traddr "
                + "(connect options are long-only here, their letters being SPDK's: -a -c -i -k -l -q -s -t -Q).",
            "Several paths to one subsystem (multipath, ANA-aware, failover): --traddr takes a comma list, each entry "
                + "ADDR (on --trsvcid) or ADDR:PORT, e.g. --traddr 10.0.0.1:4420,10.0.0.2:4420 (nvme-cli connects "
                + "once per path and the kernel joins them; here one command names them all)."})
public final class PerfCli implements Callable<Integer> {

    @Option(names = {"-r", "--transport-id"}, paramLabel = "TRID",
            description = "SPDK transport ID: 'trtype:RDMA adrfam:IPv4 traddr:A trsvcid:P subnqn:NQN [ns:N]' (wins "
                    + "over --traddr/--trsvcid/--nqn).")
    String transportId;

    @Option(names = {"-q", "--io-depth", "--queue-depth"}, defaultValue = "32", paramLabel = "N",
            description = "I/Os outstanding per queue (default: ${DEFAULT-VALUE}).")
    int depth;

    @Option(names = {"-o", "--io-size"}, defaultValue = "4096", paramLabel = "BYTES",
            converter = SizeConverter.class, description = "Bytes per I/O; k/m suffixes (default: ${DEFAULT-VALUE}).")
    long ioSize;

    @Option(names = {"-w", "--io-pattern", "--workload"}, defaultValue = "randread", paramLabel = "PATTERN",
            converter = WorkloadConverter.class,
            description = "read, write, randread, randwrite, rw, randrw (default: ${DEFAULT-VALUE}).")
    Workload workload;

    @Option(names = {"-M", "--rwmixread"}, defaultValue = "50", paramLabel = "PERCENT",
            description = "Read share of rw/randrw (default: ${DEFAULT-VALUE}, fio's rwmixread default; "
                    + "spdk_nvme_perf requires -M for rw/randrw).")
    int readPercent;

    @Option(names = {"-t", "--time"}, defaultValue = "10", paramLabel = "SECONDS",
            description = "Measured seconds (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = {"-a", "--warmup-time", "--ramp"}, defaultValue = "1", paramLabel = "SECONDS",
            description = "Seconds of I/O before measuring: spdk_nvme_perf's warm-up, fio's ramp_time "
                    + "(default: ${DEFAULT-VALUE}).")
    double rampSeconds;

    @Option(names = {"-P", "--num-qpairs", "--queues"}, defaultValue = "1", paramLabel = "N",
            description = "I/O queue pairs to drive, each with -q I/Os (default: ${DEFAULT-VALUE}).")
    int queues;

    @Option(names = "--threads", defaultValue = "0", paramLabel = "N",
            description = "Threads polling the queues (default: one per CPU perf may run on, at most one per queue: "
                    + "perf under taskset -c 1 with -P 2 polls both queues from one thread, as spdk_nvme_perf -c 0x2 "
                    + "-P 2 does).")
    int threads;

    @Option(names = "--verify", description = "Write stamped patterns first, check every read (LBA, generation).")
    boolean verify;

    @Option(names = "--size", converter = SizeConverter.class, paramLabel = "BYTES",
            description = "Use only the first BYTES of the namespace (default: all of it).")
    long regionBytes;

    @Option(names = "--nsid", paramLabel = "NSID", description = "Namespace (default: the first active one).")
    Long nsid;

    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "Serve Prometheus text on http://127.0.0.1:PORT/metrics while running.")
    Integer metricsPort;

    @Option(names = "--spin-us", paramLabel = "MICROS",
            description = "How long each completion thread busy-polls after its last completion before it sleeps;"
                    + " over RDMA at least 1000 while commands are outstanding, unless 0 (default: 200).")
    long spinMicros = 200;

    @Option(names = "--report", paramLabel = "FILE.html",
            description = "Write an HTML page with the latency percentile curve and IOPS over time.")
    Path report;

    @Option(names = "--report-append", description = "Add this run to the runs already in the --report file.")
    boolean reportAppend;

    @Option(names = "--cpu-of", paramLabel = "PID",
            description = "Also report the CPU time of process PID (e.g. the target) and of perf itself during the "
                    + "measured window, per million I/Os (Linux /proc).")
    Long cpuOfPid;

    /** Outliers kept by --trace-outliers: 1 M (24 MB of arrays), made once before the run. */
    static final int OUTLIERS_KEPT = 1 << 20;

    @Option(names = "--trace-outliers", paramLabel = "FILE.csv",
            description = "Write the measured I/Os slower than --outlier-us to FILE.csv with the CLOCK_MONOTONIC time "
                    + "they were submitted (lay them beside -Xlog:...:tn of both JVMs; bench/tail.sh).")
    Path outlierFile;

    @Option(names = "--outlier-us", paramLabel = "MICROS", defaultValue = "50",
            description = "The latency from which --trace-outliers keeps an I/O (default: ${DEFAULT-VALUE}).")
    long outlierMicros;

    @Option(names = "--label", paramLabel = "NAME", description = "Name of this run in tables and the report.")
    String label;

    @Mixin
    LongConnectFlags fabric;

    @Mixin
    PerfOutputOptions output;

    @Spec
    CommandSpec commandSpec;

    @Override
    public Integer call() throws Exception {
        DedicatedPollers.configure();
        CommandLogging.configure(output.verbose);
        PerfSpec spec = spec();
        Long chosen = nsid;
        if (transportId != null) {
            SpdkTransportId trid = SpdkTransportId.parse(transportId);
            fabric.useTransportId(trid.trtype(), trid.traddr(), trid.trsvcid(), trid.subnqn(), trid.hostnqn());
            if (chosen == null) {
                chosen = trid.nsid();
            }
        }
        Long wantedNsid = chosen;
        PrintWriter out = commandSpec.commandLine().getOut();
        PrintWriter err = commandSpec.commandLine().getErr();
        MeterRegistry registry;
        MetricsEndpoint endpoint = null;
        if (metricsPort != null) {
            PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            registry = prometheus;
            try {
                endpoint = new MetricsEndpoint(prometheus, new InetSocketAddress("127.0.0.1", metricsPort));
            } catch (IOException e) {
                throw new CommandFailure(e instanceof java.net.BindException ? "perf: " + e.getMessage()
                        : "perf: cannot serve metrics on 127.0.0.1:" + metricsPort + ": " + e.getMessage(), e);
            }
            err.println("perf: Prometheus metrics on http://127.0.0.1:" + endpoint.address().getPort() + "/metrics");
        } else {
            registry = new SimpleMeterRegistry();
        }
        List<InetSocketAddress> paths = fabric.pathAddresses();
        if (paths.size() > 1 || !fabric.endpoint().equals(endpointOf(paths.get(0)))) {
            // a path list or ADDR:PORT: discovery, messages and the single-path case use the first entry
            fabric.useTransportId(paths.get(0).getHostString(), paths.get(0).getPort(), null, null);
        }
        MultipathController multipath = paths.size() > 1
                ? Connections.connectMultipath(fabric, paths, b -> tune(b, spec)) : null;
        try (MetricsEndpoint _ = endpoint;
             AutoCloseable connection = multipath != null ? multipath
                     : Connections.connect(fabric, b -> tune(b, spec))) {
            NvmeController controller = multipath != null ? multipath.paths().get(0) : (NvmeController) connection;
            Namespace ns = wantedNsid == null ? controller.firstNamespace()
                    : controller.namespace(wantedNsid).orElseThrow(() -> new CommandFailure(
                            "perf: namespace " + wantedNsid + " is not active on " + fabric.endpoint()));
            MultipathNamespace mpns = null;
            if (multipath != null) {
                mpns = multipath.namespace(ns.nsid()).orElseThrow();
                err.println("perf: " + multipath.paths().size() + " paths to " + multipath.subsystemNqn()
                        + ", nsid " + ns.nsid()
                        + " ANA " + multipath.anaStates(ns.nsid()) + ", policy " + multipath.policy().label());
            }
            if (controller.ioQueueCount() < spec.queues()) {
                err.println("perf: the controller granted " + controller.ioQueueCount() + " of " + spec.queues()
                        + " I/O queues");
            }
            String name = label != null ? label : spec.workload().label() + "-" + spec.ioSize() + "-qd" + spec.depth();
            CpuWindow cpu = new CpuWindow(cpuOfPid);
            OutlierTrace outliers = outlierFile == null ? null
                    : new OutlierTrace(outlierMicros * 1000L, OUTLIERS_KEPT);
            PerfResult result = new PerfRun(controller, ns, spec, registry, err, name, metricsPort != null)
                    .multipath(mpns).cpuWindow(cpu).outliers(outliers).pollThreads(threads).run();
            if (outliers != null) {
                try {
                    outliers.write(outlierFile);
                } catch (IOException e) {
                    throw new CommandFailure("perf: cannot write " + outlierFile + ": " + e.getMessage(), e);
                }
                err.println("perf: " + outliers.count() + " I/Os of " + (result.read().ios() + result.write().ios())
                        + " took >= " + outlierMicros + " us; " + outliers.kept() + " written to " + outlierFile);
            }
            if (multipath != null) {
                err.println("perf: I/Os per path " + multipath.submittedPerPath());
            }
            long ios = result.read().ios() + result.write().ios();
            PerfOutputOptions.Format format = output.format();
            if (format == PerfOutputOptions.Format.FIO_JSON) {
                Json.print(out, FioJson.document(result, VersionProvider.version(),
                        System.currentTimeMillis()));
            } else if (format == PerfOutputOptions.Format.JSON) {
                com.fasterxml.jackson.databind.node.ObjectNode json = PerfTable.json(result);
                if (cpu.measured()) {
                    json.set("cpu", cpu.json(ios));
                }
                Json.print(out, json);
            } else {
                PerfTable.print(out, List.of(result));
                if (cpu.measured() && cpuOfPid != null) {
                    out.println(cpu.describe(ios));
                    out.flush();
                }
            }
            if (report != null) {
                PerfReport.write(report, List.of(result), reportAppend);
                err.println("perf: report written to " + report);
            }
        } finally {
            registry.close();
        }
        return 0;
    }

    PerfSpec spec() {
        if (ioSize < 512 || ioSize > (64 << 20)) {
            throw new UsageProblem("perf: -o " + ioSize + " outside 512 bytes .. 64 MiB");
        }
        if (depth < 1 || depth > 1023) {
            throw new UsageProblem("perf: -q " + depth + " outside 1..1023");
        }
        if (seconds <= 0 || rampSeconds < 0) {
            throw new UsageProblem("perf: -t must be positive and --ramp not negative");
        }
        if (queues < 1) {
            throw new UsageProblem("perf: --queues must be at least 1");
        }
        if (threads < 0) {
            throw new UsageProblem("perf: --threads must not be negative");
        }
        if (readPercent < 0 || readPercent > 100) {
            throw new UsageProblem("perf: -M " + readPercent + " outside 0..100");
        }
        if (outlierMicros < 0) {
            throw new UsageProblem("perf: --outlier-us " + outlierMicros + " must not be negative");
        }
        if (reportAppend && report == null) {
            throw new UsageProblem("perf: --report-append needs --report FILE.html");
        }
        return new PerfSpec(workload, (int) ioSize, depth, queues, readPercent,
                Duration.ofMillis(Math.round(seconds * 1000)), Duration.ofMillis(Math.round(rampSeconds * 1000)),
                verify, regionBytes);
    }

    private static String endpointOf(InetSocketAddress a) {
        String host = a.getHostString();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    private ConnectOptions.Builder tune(ConnectOptions.Builder b, PerfSpec spec) {
        // One queue per driver, deep enough for -q (SQSIZE = entries - 1), and a spin budget that keeps the
        // completion threads polling between I/Os at depth 1 instead of sleeping.
        if (fabric.nrIoQueuesGiven() == null) {
            b.ioQueues(spec.queues());
        }
        if (fabric.queueSizeGiven() == null) {
            b.queueSize(Math.max(ConnectOptions.DEFAULT_QUEUE_SIZE, Math.min(ConnectOptions.MAX_QUEUE_SIZE,
                    spec.depth() + 1)));
        }
        return b.spinBudget(Duration.ofNanos(Math.max(0, spinMicros) * 1000))
                .buffersPerQueue(Math.max(32, spec.depth()));
    }
}
