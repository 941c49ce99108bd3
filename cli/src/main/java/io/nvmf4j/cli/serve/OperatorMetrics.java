package io.nvmf4j.cli.serve;

import io.micrometer.core.instrument.FunctionCounter;
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
import io.nvmf4j.target.rdma.PollGroupStats;
import io.nvmf4j.target.rdma.RdmaTransport;
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
 *
 * <p>Once the transport runs ({@link #bindTransport}), per poll group (label {@code group}, 0 .. poll groups - 1,
 * fixed at start): {@code nvmf4j_poll_group_polls_total{group,kind="busy|idle"}} (SPDK's {@code polls} /
 * {@code idle_polls} of {@code nvmf_get_stats}), {@code nvmf4j_buffer_pool_bytes{group,state="free|used"}} and
 * {@code nvmf4j_poll_group_queues{group}}, read from {@link RdmaTransport#pollGroupStats()} at each scrape: the
 * poll threads keep plain counters and are never stopped or locked for them.
 */
final class OperatorMetrics implements AutoCloseable {

    private final NvmeTarget target;
    private final MultiGauge hosts;
    private final MultiGauge queues;
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final MeterRegistry registry;
    /** The latest poll-group snapshot, refreshed before each scrape; empty until the transport is bound. */
    private volatile List<PollGroupStats> groups = List.of();
    private RdmaTransport transport;

    OperatorMetrics(MeterRegistry registry, NvmeTarget target, String version) {
        this.target = target;
        this.registry = registry;
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

    /**
     * Registers the poll-group series of {@code rdma} (once; its poll groups are fixed for its life). Called after
     * the transport is open, which happens after the endpoint started: a scrape before sees no poll-group rows.
     */
    synchronized void bindTransport(RdmaTransport rdma) {
        if (transport != null) {
            throw new IllegalStateException("a transport is bound already");
        }
        transport = rdma;
        groups = rdma.pollGroupStats();
        for (PollGroupStats g : groups) {
            int index = g.group();
            String group = Integer.toString(index);
            FunctionCounter.builder("nvmf4j.poll.group.polls", this, m -> m.group(index).busyPolls())
                    .tags("group", group, "kind", "busy")
                    .description("completion-queue polls of the poll group: busy reaped completions, idle found none")
                    .register(registry);
            FunctionCounter.builder("nvmf4j.poll.group.polls", this, m -> m.group(index).idlePolls())
                    .tags("group", group, "kind", "idle")
                    .description("completion-queue polls of the poll group: busy reaped completions, idle found none")
                    .register(registry);
            Gauge.builder("nvmf4j.buffer.pool.bytes", this, m -> m.group(index).bufferBytesFree())
                    .tags("group", group, "state", "free")
                    .description("registered data buffer pool of the poll group: free or used by requests in flight")
                    .register(registry);
            Gauge.builder("nvmf4j.buffer.pool.bytes", this, m -> m.group(index).bufferBytesUsed())
                    .tags("group", group, "state", "used")
                    .description("registered data buffer pool of the poll group: free or used by requests in flight")
                    .register(registry);
            Gauge.builder("nvmf4j.poll.group.queues", this, m -> m.group(index).queues())
                    .tags("group", group)
                    .description("queue pairs (admin and I/O) served by the poll group").register(registry);
        }
    }

    private PollGroupStats group(int index) {
        List<PollGroupStats> g = groups;
        return index < g.size() ? g.get(index) : new PollGroupStats(index, 0, 0, 0, 0, 0);
    }

    /** Recomputes the per-subsystem rows (called before each scrape; walks controllers, not the data path). */
    void refresh() {
        RdmaTransport rdma;
        synchronized (this) {
            rdma = transport;
        }
        if (rdma != null) {
            groups = rdma.pollGroupStats();
        }
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
