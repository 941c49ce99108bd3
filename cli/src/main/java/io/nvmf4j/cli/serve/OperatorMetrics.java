package io.nvmf4j.cli.serve;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.nvmf4j.target.Controller;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.SubmissionQueue;
import io.nvmf4j.target.Subsystem;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What an operator's dashboard needs beside the I/O meters of {@code TargetMetrics}: the JVM, GC and process
 * (Micrometer's binders), {@code nvmf4j_build_info}, and per subsystem the connected hosts and the admin and I/O
 * queues counted apart. The per-subsystem rows are recomputed from the target at each scrape ({@link #refresh()}),
 * so subsystems created or deleted at run time appear and disappear; their label set is the configured
 * subsystems, bounded by the operator, never by what a host sends.
 */
final class OperatorMetrics implements AutoCloseable {

    private final NvmeTarget target;
    private final MultiGauge hosts;
    private final MultiGauge queues;
    private final JvmGcMetrics gc = new JvmGcMetrics();

    OperatorMetrics(MeterRegistry registry, NvmeTarget target, String version) {
        this.target = target;
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        Gauge.builder("nvmf4j.build.info", () -> 1)
                .tags("version", version, "java", Runtime.version().toString())
                .description("1, labelled with the nvmf4j and Java versions").register(registry);
        hosts = MultiGauge.builder("nvmf4j.connected.hosts")
                .description("distinct host NQNs with a controller on the subsystem").register(registry);
        queues = MultiGauge.builder("nvmf4j.queues")
                .description("connected queues by type: admin (one per controller) or io").register(registry);
        refresh();
    }

    /** Recomputes the per-subsystem rows (called before each scrape; walks controllers, not the data path). */
    void refresh() {
        List<MultiGauge.Row<?>> hostRows = new ArrayList<>();
        List<MultiGauge.Row<?>> queueRows = new ArrayList<>();
        for (Subsystem s : target.subsystems()) {
            Set<String> hostNqns = new HashSet<>();
            int admin = 0;
            int io = 0;
            for (Controller c : s.controllers()) {
                hostNqns.add(c.hostNqn());
                for (SubmissionQueue q : c.queues()) {
                    if (q.qidValue() == 0) {
                        admin++;
                    } else {
                        io++;
                    }
                }
            }
            String nqn = s.nqn().value();
            hostRows.add(MultiGauge.Row.of(Tags.of("subsystem", nqn), hostNqns.size()));
            queueRows.add(MultiGauge.Row.of(Tags.of("subsystem", nqn, "type", "admin"), admin));
            queueRows.add(MultiGauge.Row.of(Tags.of("subsystem", nqn, "type", "io"), io));
        }
        hosts.register(hostRows, true);
        queues.register(queueRows, true);
    }

    @Override
    public void close() {
        gc.close();
    }
}
