package io.nvmf4j.cli.demo;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.CommandFailure;
import io.nvmf4j.cli.host.CommandLogging;
import io.nvmf4j.cli.host.FailureReport;
import io.nvmf4j.cli.host.Json;
import io.nvmf4j.cli.host.UsageProblem;
import io.nvmf4j.cli.perf.PerfReport;
import io.nvmf4j.cli.perf.PerfResult;
import io.nvmf4j.cli.perf.PerfRun;
import io.nvmf4j.cli.perf.PerfSpec;
import io.nvmf4j.cli.perf.PerfTable;
import io.nvmf4j.cli.perf.Workload;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfConnectException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nvmf4j demo}: the first command on a fresh machine. Starts a target with a RAM namespace on loopback in
 * this process (softiwarp: no RDMA hardware, no kernel module), connects the initiator to it over real TCP
 * sockets, runs a short perf series and prints the table.
 */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "demo", sortOptions = false, description = {
    // One element per paragraph: picocli wraps each element on its own, so a sentence split over two elements
    // broke mid-line in --help (issue 16).
    "Run a short perf series against a RAM target started in this process (softiwarp on loopback).",
    "The target serves a RAM namespace on 127.0.0.1; the initiator connects to it over real TCP sockets and "
        + "runs a verified 4 KiB random write/read pass (first 64 MiB), 4 KiB random read at QD1 and QD32, and "
        + "128 KiB sequential read."})
public final class DemoCli implements Callable<Integer> {

    @Option(names = "--size", defaultValue = "256", paramLabel = "MIB",
            description = "RAM namespace size in MiB (default: ${DEFAULT-VALUE}).")
    int sizeMib;

    @Option(names = {"-t", "--time"}, defaultValue = "3", paramLabel = "SECONDS",
            description = "Measured seconds per run (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--warmup", defaultValue = "2", paramLabel = "SECONDS",
            description = "Unmeasured I/O first, so the JIT has compiled both sides (default: ${DEFAULT-VALUE}).")
    double warmupSeconds;

    @Option(names = "--port", defaultValue = "0", paramLabel = "PORT",
            description = "Loopback port of the target (default: a free one).")
    int port;

    @Option(names = "--provider", defaultValue = "softiwarp", paramLabel = "NAME",
            description = "RDMA provider for both sides (default: ${DEFAULT-VALUE}).")
    String provider;

    @Option(names = "--json", description = "Print the results as JSON.")
    boolean json;

    @Option(names = "--report", paramLabel = "FILE.html", description = "Also write the HTML report of the runs.")
    Path report;

    @Option(names = {"-v", "--verbose"}, description = "On failure, print the cause chain and stack trace.")
    boolean verbose;

    @Spec
    CommandSpec commandSpec;

    @Override
    public Integer call() throws Exception {
        CommandLogging.configure(verbose);
        PrintWriter out = commandSpec.commandLine().getOut();
        PrintWriter err = commandSpec.commandLine().getErr();
        if (sizeMib < 16 || seconds <= 0) {
            throw new UsageProblem("demo: --size must be at least 16 MiB and -t positive");
        }
        long bytes = (long) sizeMib << 20;
        Duration window = Duration.ofMillis(Math.round(seconds * 1000));
        Duration ramp = Duration.ofMillis(Math.min(1000, window.toMillis() / 3));
        List<PerfSpec> series = List.of(
                new PerfSpec(Workload.RANDRW, 4096, 32, 1, 50, window, ramp, true, Math.min(64L << 20, bytes)),
                new PerfSpec(Workload.RANDREAD, 4096, 1, 1, 100, window, ramp, false, 0),
                new PerfSpec(Workload.RANDREAD, 4096, 32, 1, 100, window, ramp, false, 0),
                new PerfSpec(Workload.READ, 128 * 1024, 8, 1, 100, window, ramp, false, 0));
        List<String> labels = List.of("4k-randrw-qd32-verify", "4k-randread-qd1", "4k-randread-qd32",
                "128k-read-qd8");
        long started = System.nanoTime();
        try (EmbeddedTarget target = EmbeddedTarget.start(bytes, 512, provider, port, 1)) {
            err.printf(Locale.ROOT, "demo: target with a %d MiB RAM namespace (512-byte blocks) listening on %s:%d "
                    + "over %s, in this process%n", sizeMib, target.address().getHostString(),
                    target.address().getPort(), provider);
            err.flush();
            ConnectOptions options = ConnectOptions.builder(target.address(), EmbeddedTarget.SUBSYSTEM)
                    .host(HostIdentity.generate()).provider(provider).ioQueues(1).queueSize(128)
                    .spinBudget(Duration.ofNanos(200_000)).build();
            NvmeController controller;
            try {
                controller = NvmeController.connect(options);
            } catch (NvmfConnectException e) {
                throw new CommandFailure("demo: cannot connect to the embedded target at " + target.address()
                        .getHostString() + ":" + target.address().getPort() + ": "
                        + FailureReport.connectReason(e, options.connectTimeout().toMillis()), e);
            }
            List<PerfResult> results = new ArrayList<>();
            try (controller) {
                Namespace ns = controller.firstNamespace();
                err.printf(Locale.ROOT, "demo: connected to %s (cntlid %d, %d I/O queue of %d entries, MDTS %d KiB), "
                        + "nsid %d: %d blocks of %d bytes%n", EmbeddedTarget.SUBSYSTEM, controller.controllerId()
                        .value(), controller.ioQueueCount(), controller.ioQueueSize(),
                        controller.maxTransferBytes() >> 10, ns.nsid(), ns.blockCount(), ns.blockSize());
                err.flush();
                SimpleMeterRegistry registry = new SimpleMeterRegistry();
                try {
                    if (warmupSeconds > 0) {
                        // A fresh JVM runs both the target and the initiator interpreted at first; the first
                        // seconds of I/O would otherwise be charged to whichever run comes first.
                        err.printf(Locale.ROOT, "demo: warming up for %.0f s (not measured)%n", warmupSeconds);
                        err.flush();
                        new PerfRun(controller, ns, new PerfSpec(Workload.RANDRW, 4096, 32, 1, 50,
                                Duration.ofMillis(Math.round(warmupSeconds * 1000)), Duration.ZERO, false, 0),
                                registry, null, "warmup", false).run();
                    }
                    for (int i = 0; i < series.size(); i++) {
                        PerfSpec spec = series.get(i);
                        err.println("demo: run " + (i + 1) + "/" + series.size() + ": " + spec.describe());
                        err.flush();
                        results.add(new PerfRun(controller, ns, spec, registry, err, labels.get(i), false).run());
                    }
                } finally {
                    registry.close();
                }
            }
            if (json) {
                var root = Json.object();
                var runs = root.putArray("runs");
                for (PerfResult r : results) {
                    runs.add(PerfTable.json(r));
                }
                Json.print(out, root);
            } else {
                out.println();
                PerfTable.print(out, results);
                out.printf(Locale.ROOT, "%ndemo: done in %.1f s; nvmf4j target and initiator in one JVM over "
                        + "softiwarp on loopback TCP%n", (System.nanoTime() - started) / 1e9);
                out.flush();
            }
            if (report != null) {
                PerfReport.write(report, results, false);
                err.println("demo: report written to " + report);
            }
        }
        return 0;
    }
}
