package io.nvmf4j.target.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.nvmf4j.protocol.io.IoOpcode;
import io.nvmf4j.target.AuthOutcome;
import io.nvmf4j.target.AuthenticationObserver;
import io.nvmf4j.target.Request;
import io.nvmf4j.target.SubmissionQueue;
import io.nvmf4j.target.SubsystemNamespace;
import io.nvmf4j.target.rdma.RejectReason;
import io.nvmf4j.target.rdma.TransportObserver;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The target's Micrometer meters, fed by the transport ({@link TransportObserver}):
 *
 * <ul>
 *   <li>{@code nvmf4j.io.operations} (counter; tags subsystem, nsid, op = read/write/flush/other): commands
 *       completed, successful or not; the rate is IOPS;</li>
 *   <li>{@code nvmf4j.io.bytes} (counter, bytes; op = read/write): data moved by successful reads and writes;</li>
 *   <li>{@code nvmf4j.io.latency} (timer with a fixed-bucket histogram; op = read/write): capsule arrival to
 *       response posted;</li>
 *   <li>{@code nvmf4j.io.errors} (counter): commands completed with a non-zero status;</li>
 *   <li>{@code nvmf4j.io.queue.depth} (gauge): commands of the namespace in flight in the target;</li>
 *   <li>{@code nvmf4j.connections} (gauge; tag subsystem) connected queues, {@code nvmf4j.connects} (counter)
 *       queues ever connected;</li>
 *   <li>{@code nvmf4j.rejected} (counter; tag reason, one of {@link RejectReason}'s labels, registered up front):
 *       connections refused or ended because of their peer; Prometheus {@code nvmf4j_rejected_total{reason}};</li>
 *   <li>{@code nvmf4j.auth} (counter; tags result = success/failure and reason, {@link AuthOutcome}'s labels,
 *       registered up front): DH-HMAC-CHAP transactions by outcome, one per queue and transaction; Prometheus
 *       {@code nvmf4j_auth_total{result,reason}}. Never a host NQN or a key.</li>
 * </ul>
 *
 * Meters are resolved once per namespace and kept in a map keyed by the {@link SubsystemNamespace} object; the
 * per-command path is a map lookup, counter increments and a timer record, without allocation.
 */
public final class TargetMetrics implements TransportObserver, AuthenticationObserver {

    private final MeterRegistry registry;
    private final Map<SubsystemNamespace, NamespaceMeters> namespaces = new ConcurrentHashMap<>();
    private final Map<String, SubsystemMeters> subsystems = new ConcurrentHashMap<>();
    private final Map<RejectReason, Counter> rejected = new java.util.EnumMap<>(RejectReason.class);
    private final Map<AuthOutcome, Counter> authentications = new java.util.EnumMap<>(AuthOutcome.class);

    public TargetMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (RejectReason reason : RejectReason.values()) {
            rejected.put(reason, Counter.builder("nvmf4j.rejected").tag("reason", reason.label())
                    .description("connections refused or ended because of their peer").register(registry));
        }
        for (AuthOutcome outcome : AuthOutcome.values()) {
            authentications.put(outcome, Counter.builder("nvmf4j.auth").tag("result", outcome.result())
                    .tag("reason", outcome.reason())
                    .description("DH-HMAC-CHAP transactions by outcome").register(registry));
        }
    }

    /** The suppliers behind nvmf4j_rejected_total's provider series, held strongly (see registerDeviceRejections). */
    private final java.util.List<java.util.function.Supplier<Map<String, Long>>> deviceRejections =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public void authentication(AuthOutcome outcome) {
        authentications.get(outcome).increment();
    }

    /**
     * Adds the RDMA provider's own refusals ({@link io.nvmf4j.verbs.RdmaDevice#rejectedPeerCounts()}: connection
     * floods, MPA timeouts, Terminates) to {@code nvmf4j_rejected_total}, one series per provider label, read when
     * scraped. The label set is the provider's fixed one, taken once here.
     */
    public void registerDeviceRejections(java.util.function.Supplier<Map<String, Long>> counts) {
        // Micrometer holds a function counter's object weakly: without this reference a method reference such as
        // device::rejectedPeerCounts is collected at the next GC and the series stops counting
        deviceRejections.add(counts);
        for (String label : counts.get().keySet()) {
            io.micrometer.core.instrument.FunctionCounter.builder("nvmf4j.rejected", counts,
                            c -> c.get().getOrDefault(label, 0L))
                    .tag("reason", label)
                    .description("connections refused or ended because of their peer")
                    .register(registry);
        }
    }

    @Override
    public void peerRejected(RejectReason reason) {
        rejected.get(reason).increment();
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The meters of one namespace. */
    static final class NamespaceMeters {
        final Counter reads;
        final Counter writes;
        final Counter flushes;
        final Counter others;
        final Counter readBytes;
        final Counter writeBytes;
        final Counter errors;
        final Timer readLatency;
        final Timer writeLatency;
        final AtomicInteger inFlight = new AtomicInteger();

        NamespaceMeters(MeterRegistry registry, String subsystem, long nsid) {
            Tags tags = Tags.of("subsystem", subsystem, "nsid", Long.toString(nsid));
            reads = Counter.builder("nvmf4j.io.operations").tags(tags).tag("op", "read")
                    .description("I/O commands completed").register(registry);
            writes = Counter.builder("nvmf4j.io.operations").tags(tags).tag("op", "write")
                    .description("I/O commands completed").register(registry);
            flushes = Counter.builder("nvmf4j.io.operations").tags(tags).tag("op", "flush")
                    .description("I/O commands completed").register(registry);
            others = Counter.builder("nvmf4j.io.operations").tags(tags).tag("op", "other")
                    .description("I/O commands completed").register(registry);
            readBytes = Counter.builder("nvmf4j.io.bytes").tags(tags).tag("op", "read").baseUnit("bytes")
                    .description("data moved by successful commands").register(registry);
            writeBytes = Counter.builder("nvmf4j.io.bytes").tags(tags).tag("op", "write").baseUnit("bytes")
                    .description("data moved by successful commands").register(registry);
            errors = Counter.builder("nvmf4j.io.errors").tags(tags)
                    .description("I/O commands completed with an error status").register(registry);
            readLatency = latency(registry, tags, "read");
            writeLatency = latency(registry, tags, "write");
            Gauge.builder("nvmf4j.io.queue.depth", inFlight, AtomicInteger::get).tags(tags)
                    .description("commands in flight in the target").register(registry);
        }

        /**
         * A histogram with fixed bucket boundaries (quantiles come from the buckets, e.g. Prometheus'
         * histogram_quantile). No client-side percentiles: those record into an auto-resizing HdrHistogram, which
         * allocates on the poll thread whenever a latency beyond its current range shows up.
         */
        private static Timer latency(MeterRegistry registry, Tags tags, String op) {
            return Timer.builder("nvmf4j.io.latency").tags(tags).tag("op", op)
                    .description("capsule arrival to response posted")
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofNanos(1_000))
                    .maximumExpectedValue(Duration.ofSeconds(10))
                    .register(registry);
        }
    }

    /** The meters of one subsystem. */
    static final class SubsystemMeters {
        final AtomicInteger connections = new AtomicInteger();
        final Counter connects;

        SubsystemMeters(MeterRegistry registry, String subsystem) {
            Gauge.builder("nvmf4j.connections", connections, AtomicInteger::get).tag("subsystem", subsystem)
                    .description("connected queues (admin and I/O)").register(registry);
            connects = Counter.builder("nvmf4j.connects").tag("subsystem", subsystem)
                    .description("queues connected since start").register(registry);
        }
    }

    private NamespaceMeters meters(Request request) {
        SubsystemNamespace ns = request.namespace();
        if (ns == null) {
            return null;
        }
        NamespaceMeters m = namespaces.get(ns);
        if (m == null) {
            SubmissionQueue sq = request.queue();
            String subsystem = sq != null && sq.controller() != null ? sq.controller().subsystem().nqn().value() : "";
            m = namespaces.computeIfAbsent(ns, n -> new NamespaceMeters(registry, subsystem, n.nsid()));
        }
        return m;
    }

    /** Registers a subsystem's connection meters up front, so they show (at zero) before any host connects. */
    public void registerSubsystem(String nqn) {
        subsystem(nqn);
    }

    /**
     * Registers the meters of every subsystem and namespace {@code target} has now, those added while it runs
     * included, so each series shows at zero from the moment its namespace exists: a dashboard or an alert on
     * {@code rate(nvmf4j_io_operations_total[5m])} otherwise has no series for an idle namespace, and a namespace's
     * first I/O looked like a new series appearing. Cheap enough to call before every scrape.
     */
    public void registerNamespaces(io.nvmf4j.target.NvmeTarget target) {
        for (io.nvmf4j.target.Subsystem s : target.subsystems()) {
            if (s.isDiscovery()) {
                continue;
            }
            String nqn = s.nqn().value();
            subsystem(nqn);
            for (SubsystemNamespace ns : s.namespaces()) {
                if (!namespaces.containsKey(ns)) {
                    namespaces.computeIfAbsent(ns, n -> new NamespaceMeters(registry, nqn, n.nsid()));
                }
            }
        }
    }

    private SubsystemMeters subsystem(String nqn) {
        SubsystemMeters m = subsystems.get(nqn);
        if (m == null) {
            m = subsystems.computeIfAbsent(nqn, n -> new SubsystemMeters(registry, n));
        }
        return m;
    }

    @Override
    public void commandStarted(Request request) {
        NamespaceMeters m = meters(request);
        if (m != null) {
            m.inFlight.incrementAndGet();
        }
    }

    @Override
    public void commandFinished(Request request, long latencyNanos, boolean responded) {
        NamespaceMeters m = meters(request);
        if (m == null) {
            return;
        }
        m.inFlight.decrementAndGet();
        if (!responded) {
            return;
        }
        boolean ok = request.statusField() == 0;
        int opcode = request.sqe().opcode();
        if (opcode == IoOpcode.READ.code()) {
            m.reads.increment();
            m.readLatency.record(latencyNanos, TimeUnit.NANOSECONDS);
            if (ok) {
                m.readBytes.increment((double) request.transferLength());
            }
        } else if (opcode == IoOpcode.WRITE.code()) {
            m.writes.increment();
            m.writeLatency.record(latencyNanos, TimeUnit.NANOSECONDS);
            if (ok) {
                m.writeBytes.increment((double) request.transferLength());
            }
        } else if (opcode == IoOpcode.FLUSH.code()) {
            m.flushes.increment();
        } else {
            m.others.increment();
        }
        if (!ok) {
            m.errors.increment();
        }
    }

    @Override
    public void queueConnected(String subsystemNqn, int qid) {
        SubsystemMeters m = subsystem(subsystemNqn);
        m.connections.incrementAndGet();
        m.connects.increment();
    }

    @Override
    public void queueDisconnected(String subsystemNqn, int qid) {
        subsystem(subsystemNqn).connections.decrementAndGet();
    }
}
