package io.nvmf4j.cli.serve;

import io.nvmf4j.cli.MetricsEndpoint;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.config.LoadedConfig;
import io.nvmf4j.config.Nvmf4jSettings;
import io.nvmf4j.target.ControllerShare;
import io.nvmf4j.config.TargetConfig;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.backend.BackendIoMode;
import io.nvmf4j.target.backend.BackendSettings;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.TargetConfigurator;
import io.nvmf4j.target.metrics.TargetMetrics;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import io.nvmf4j.target.tcp.TcpTransportOptions;
import io.nvmf4j.verbs.VerbsException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A running target: the configuration turned into an {@link NvmeTarget}, each port listening through the
 * transport its trtype names (RDMA or TCP, {@link FabricTransports}), and (with a metrics port) the Prometheus
 * endpoint. {@link #close()} is the orderly stop: no new connections, running commands finish and their responses go out, connections close, backends are flushed and
 * closed.
 */
public final class TargetDaemon implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(TargetDaemon.class.getName());

    private final NvmeTarget target;
    private final FabricTransports transports;
    private final MetricsEndpoint metrics;
    private final List<InetSocketAddress> listening;
    private final LiveTarget live;
    private boolean closed;

    private TargetDaemon(NvmeTarget target, FabricTransports transports, MetricsEndpoint metrics,
                         List<InetSocketAddress> listening, TargetConfig config) {
        this.target = target;
        this.transports = transports;
        this.metrics = metrics;
        this.listening = List.copyOf(listening);
        this.live = new LiveTarget(target, config, transports);
    }

    /** TCP transport options from the {@code nvmf4j} settings section: its poll groups and spin budget. */
    static TcpTransportOptions tcpTransportOptions(Nvmf4jSettings s) {
        TcpTransportOptions.Builder b = TcpTransportOptions.builder()
                .spinBudget(Duration.ofNanos(s.spinBudgetMicros() * 1000L));
        if (s.pollGroups() > 0) {
            b.pollGroups(s.pollGroups());
        }
        return b.build();
    }

    /** Transport options from the {@code nvmf4j} settings section. */
    static RdmaTransportOptions transportOptions(Nvmf4jSettings s, boolean trace) {
        int groups = s.pollGroups() > 0 ? s.pollGroups() : RdmaTransportOptions.defaultPollGroups();
        long poolBytes = Math.max(4L << 20, (long) s.bufferCount() * s.bufferSize());
        return RdmaTransportOptions.builder().provider(s.provider().jsonName()).pollGroups(groups)
                .spinBudget(Duration.ofNanos(s.spinBudgetMicros() * 1000L)).bufferPoolBytes(poolBytes)
                .trace(trace).build();
    }

    /** How file and block-device namespaces run their I/O, from the settings section's {@code backend_io}. */
    static BackendSettings backendSettings(Nvmf4jSettings s) {
        return BackendSettings.DEFAULT.withMode(BackendIoMode.parse(s.backendIo()))
                .withTimeout(Duration.ofMillis(s.backendTimeoutMillis()));
    }

    public static TargetDaemon start(LoadedConfig loaded, boolean trace) throws IOException, VerbsException {
        return start(loaded, trace, UnaryOperator.identity());
    }

    /**
     * Starts the daemon with the transport options of the settings section passed through {@code tune} (the
     * command line's hostile-peer limits).
     */
    public static TargetDaemon start(LoadedConfig loaded, boolean trace, UnaryOperator<RdmaTransportOptions> tune)
            throws IOException, VerbsException {
        return start(loaded, trace, tune, java.net.InetAddress.getLoopbackAddress());
    }

    /** As above, with the metrics endpoint on {@code metricsAddress} (--metrics-address). */
    public static TargetDaemon start(LoadedConfig loaded, boolean trace, UnaryOperator<RdmaTransportOptions> tune,
                                     java.net.InetAddress metricsAddress) throws IOException, VerbsException {
        return start(loaded, trace, tune, metricsAddress, null);
    }

    /**
     * As above; with {@code reservationDir} (--reservation-dir) reservations can persist through power loss there,
     * and what a previous run persisted is in force before the first host connects.
     */
    public static TargetDaemon start(LoadedConfig loaded, boolean trace, UnaryOperator<RdmaTransportOptions> tune,
                                     java.net.InetAddress metricsAddress, java.nio.file.Path reservationDir)
            throws IOException, VerbsException {
        TargetConfig config = loaded.config();
        if (config.ports().isEmpty()) {
            // a daemon that listens nowhere looks healthy to systemd and serves nothing: refuse, as nvmetcli
            // restore of a file without a usable port leaves nothing a host can reach
            throw new IllegalArgumentException(loaded.source() + ": no port to listen on (every port was skipped, "
                    + "see the warnings above, or the configuration has none); nvmf4j serves RDMA and TCP ports");
        }
        Nvmf4jSettings settings = config.nvmf4j() != null ? config.nvmf4j() : Nvmf4jSettings.defaults();
        NvmeTarget target = TargetConfigurator.build(config);
        target.backendSettings(backendSettings(settings));
        target.controllerShare(new ControllerShare(settings.maxControllersPerHost(),
                settings.maxControllersPerAddress()));
        if (reservationDir != null) {
            try {
                target.persistReservationsIn(reservationDir);
            } catch (IOException | RuntimeException e) {
                target.close();
                throw e;
            }
        }
        MetricsEndpoint endpoint = null;
        FabricTransports transports = null;
        try {
            TransportObserver observer = TransportObserver.NONE;
            TargetMetrics targetMetrics = null;
            OperatorMetrics operator = null;
            if (settings.metricsPort() != null) {
                PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
                TargetMetrics meters = new TargetMetrics(registry);
                targetMetrics = meters;
                meters.registerNamespaces(target);
                observer = targetMetrics;
                target.authenticationObserver(targetMetrics);
                OperatorMetrics snapshot = new OperatorMetrics(registry, target, buildVersion());
                operator = snapshot;
                // before each scrape: namespaces and subsystems added through ctl or a reload get their series
                endpoint = new MetricsEndpoint(registry, metricsAddress, settings.metricsPort(), () -> {
                    meters.registerNamespaces(target);
                    snapshot.refresh();
                });
                if (!metricsAddress.isLoopbackAddress()) {
                    LOG.log(Level.WARNING, "metrics served beyond this host on {0}: anyone who reaches it sees subsystem"
                            + " NQNs and load", metricsAddress.getHostAddress());
                }
                LOG.log(Level.INFO, "metrics at http://{0}:{1,number,#}/metrics",
                        endpoint.address().getAddress().getHostAddress(), endpoint.address().getPort());
            }
            TargetMetrics rdmaMeters = targetMetrics;
            OperatorMetrics rdmaOperator = operator;
            transports = new FabricTransports(target, tune.apply(transportOptions(settings, trace)),
                    tcpTransportOptions(settings), observer, rdma -> {
                        if (rdmaMeters != null) {
                            rdmaMeters.registerDeviceRejections(rdma.device()::rejectedPeerCounts);
                            rdmaOperator.bindTransport(rdma);
                        }
                    });
            List<InetSocketAddress> bound = new ArrayList<>();
            for (Port port : target.ports()) {
                bound.add(transports.listenOn(port));
            }
            for (Subsystem s : target.subsystems()) {
                if (!s.isDiscovery()) {
                    LOG.log(Level.INFO, "serving {0}: {1} namespace(s), {2}", s.nqn(), s.namespaces().size(),
                            s.allowsAnyHost() ? "any host" : "hosts " + s.allowedHosts());
                }
            }
            return new TargetDaemon(target, transports, endpoint, bound, config);
        } catch (IOException | RuntimeException e) {
            closeAll(transports, endpoint, target);
            throw e;
        }
    }

    private static String buildVersion() {
        try {
            return VersionProvider.version();
        } catch (RuntimeException e) {
            return "unknown";
        }
    }

    public List<InetSocketAddress> listening() {
        return listening;
    }

    /** The metrics endpoint's address, or null without one. */
    public InetSocketAddress metricsAddress() {
        return metrics == null ? null : metrics.address();
    }

    /** The transports the ports listen through (tests: which ones were opened). */
    FabricTransports transports() {
        return transports;
    }

    public NvmeTarget target() {
        return target;
    }

    /** The target with the configuration it runs, for the management socket and reload. */
    public LiveTarget live() {
        return live;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        LOG.log(Level.INFO, "stopping: no new connections, finishing commands in flight");
        closeAll(transports, metrics, target);
        live.close();
        LOG.log(Level.INFO, "stopped; backends flushed");
    }

    private static void closeAll(FabricTransports transports, MetricsEndpoint metrics, NvmeTarget target) {
        if (transports != null) {
            try {
                transports.close();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "closing the transport: {0}", e.toString());
            }
        }
        if (metrics != null) {
            metrics.close();
        }
        target.close();
    }
}
