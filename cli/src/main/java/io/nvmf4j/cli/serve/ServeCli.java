package io.nvmf4j.cli.serve;

import io.nvmf4j.cli.DedicatedPollers;
import io.nvmf4j.cli.ctl.SocketPaths;
import io.nvmf4j.target.backend.BackendIoMode;
import io.nvmf4j.config.ConfigException;
import io.nvmf4j.config.ConfigLoader;
import io.nvmf4j.config.LoadedConfig;
import io.nvmf4j.config.Nvmf4jSettings;
import io.nvmf4j.config.SubsystemAttributes;
import io.nvmf4j.config.SubsystemConfig;
import io.nvmf4j.config.TargetConfig;
import io.nvmf4j.config.Provider;
import io.nvmf4j.config.QuickConfig;
import io.nvmf4j.config.UnsupportedFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nvmf4j serve}: runs the target daemon until SIGTERM / Ctrl-C, from an nvmetcli {@code saveconfig.json}
 * (plus its {@code "nvmf4j"} section) or from the quick form on the command line. Its signals are handled from its
 * first step ({@link ServeSignals}), before it announces anything.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve files, block devices or RAM as NVMe namespaces over RDMA or TCP (NVMe-oF target).",
            "Either --config FILE (nvmetcli saveconfig.json) or the quick form, e.g.:",
            "  nvmf4j serve --file disk.img --nqn nqn.2026-12.io.nvmf4j:disk \\",
            "      --listen 127.0.0.1:4420",
            "SIGTERM or Ctrl-C stops it (exit 0); SIGHUP or `nvmf4j ctl reload` re-reads --config and applies what"
                    + " differs (ctl reload also where SIGHUP was ignored at start, e.g. under nohup)."})
public final class ServeCli implements Callable<Integer> {

    /** What 0 (or no) poll-group count means: RdmaTransportOptions.defaultPollGroups(), in the words docs use. */
    static final String POLL_GROUPS_DEFAULT = "half the available processors, at least 1";

    @Option(names = "--config", paramLabel = "FILE", description = "nvmetcli saveconfig.json (with an optional \"nvmf4j\" section)")
    Path config;

    @Option(names = "--config-allow-unsupported", paramLabel = "FEATURE", split = ",",
            description = {"load a --config that uses FEATURE, which nvmf4j does not implement, with a warning"
                    + " instead of refusing it; FEATURE is not served (repeatable or comma-separated): tls,"
                    + " passthru, pi"})
    List<String> allowUnsupported = new ArrayList<>();

    @Option(names = "--file", paramLabel = "PATH", description = "a file or block device namespace (repeatable; nsid 1, 2, ...)")
    List<Path> files = new ArrayList<>();

    @Option(names = "--ram", paramLabel = "SIZE", description = "a RAM namespace of SIZE, e.g. 1G (repeatable)")
    List<String> ram = new ArrayList<>();

    @Option(names = "--nqn", paramLabel = "NQN", description = "the subsystem NQN")
    String nqn;

    @Option(names = "--serial", paramLabel = "SERIAL",
            description = "the subsystem's serial number (default: derived from the NQN, the same at every start)")
    String serial;

    @Option(names = "--listen", paramLabel = "ADDR[:PORT]", defaultValue = "127.0.0.1:4420",
            description = "address to listen on (default ${DEFAULT-VALUE})")
    String listen;

    @Option(names = {"-t", "--transport"}, paramLabel = "rdma|tcp",
            description = "transport of the --listen port, as nvme-cli's -t (default rdma)")
    String transport;

    @Option(names = "--allow-host", paramLabel = "NQN", description = "allow only this host NQN (repeatable; default: any host)")
    List<String> allowHosts = new ArrayList<>();

    @Option(names = "--block-size", paramLabel = "512|4096", description = "LBA size of the namespaces (default 512)")
    Integer blockSize;

    @Option(names = "--provider", paramLabel = "softiwarp|ibverbs|auto", description = "RDMA provider (default auto)")
    String provider;

    @Option(names = "--poll-groups", paramLabel = "N", description = "poll-group threads (default: "
            + POLL_GROUPS_DEFAULT + "; the config file's nvmf4j.poll_groups.count, where 0 means the same)")
    Integer pollGroups;

    @Option(names = "--spin-budget", paramLabel = "MICROS",
            description = "how long an idle poll group busy-polls before it blocks (default 100; 0 = block at once)")
    Integer spinBudgetMicros;

    @Option(names = "--backend-io", paramLabel = "uring|threads|auto",
            description = "how file and block-device namespaces do their I/O off the poll threads: one io_uring per "
                    + "poll group, or a worker pool per namespace (default auto: io_uring where the kernel has it)")
    String backendIo;

    @Option(names = "--backend-timeout", paramLabel = "SECONDS",
            description = "a backend operation older than this is answered Command Interrupted (default 20)")
    Integer backendTimeoutSeconds;

    @Option(names = "--metrics-port", paramLabel = "PORT", description = "serve Prometheus text at http://127.0.0.1:PORT/metrics")
    Integer metricsPort;

    // the same names as ctl's and rpc's, so the path typed for one works for the other
    @Option(names = {"--rpc-socket", "--socket"}, paramLabel = "PATH",
            description = "JSON-RPC management socket, mode 0600 (default /run/nvmf4j/nvmf4j.sock, or "
                    + "$XDG_RUNTIME_DIR/nvmf4j/nvmf4j.sock for a user who cannot write /run); ctl and rpc take "
                    + "the same --rpc-socket")
    Path rpcSocket;

    @Option(names = "--reservation-dir", paramLabel = "DIR",
            description = "keep reservations a host asks to persist through power loss (PTPL) in files under DIR; "
                    + "a restart over the same DIR restores them (default: reservations do not persist)")
    Path reservationDir;

    @Option(names = "--no-rpc", description = "no management socket")
    boolean noRpc;

    @Option(names = "--metrics-address", paramLabel = "ADDR", defaultValue = "127.0.0.1",
            description = "address of the metrics endpoint (default ${DEFAULT-VALUE}; 0.0.0.0 for every interface)")
    String metricsAddress;

    @Mixin
    PeerLimitOptions limits = new PeerLimitOptions();

    @Option(names = "--verbose", description = "debug logging (--log-level debug)")
    boolean verbose;

    @Option(names = "--log-level", paramLabel = "LEVEL", description = "error, warn, info (default), debug or trace")
    String logLevel;

    @Option(names = "--log-format", paramLabel = "text|journal",
            description = "text: timestamped lines; journal: <N> syslog priority prefix for journald "
                    + "(default: journal when started by systemd with stderr to the journal, JOURNAL_STREAM set)")
    String logFormat;

    @Option(names = "--trace", description = "log every RDMA request state transition")
    boolean trace;

    private final PrintStream err;

    public ServeCli() {
        this(System.err);
    }

    ServeCli(PrintStream err) {
        this.err = err;
    }

    @Override
    public Integer call() {
        // signals first: one that arrives while the daemon starts is handled, never the JVM's default exit
        try (ServeSignals signals = ServeSignals.install()) {
            return serve(signals);
        }
    }

    private int serve(ServeSignals signals) {
        DedicatedPollers.configure();
        LoadedConfig loaded;
        try {
            limits.validate();
            loaded = load();
        } catch (ConfigException e) {
            err.println(e.getMessage());
            return 1;
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 1;
        }
        if (!loaded.warnings().isEmpty()) {
            err.println(loaded.formatWarnings());
        }
        java.util.logging.Level level;
        OneLineLogFormat.Style style;
        java.net.InetAddress metricsAt;
        try {
            metricsAt = metricsInetAddress();
            level = logLevel != null ? OneLineLogFormat.parseLevel(logLevel)
                    : trace ? java.util.logging.Level.FINEST : verbose ? java.util.logging.Level.FINE
                    : java.util.logging.Level.INFO;
            style = logStyle(logFormat, System.getenv("JOURNAL_STREAM"));
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 1;
        }
        OneLineLogFormat.install(level, style);
        System.Logger log = System.getLogger(ServeCli.class.getName());
        if (signals.sighupProblem() != null) {
            log.log(System.Logger.Level.WARNING, "{0}: {1}", signals.sighupProblem(), noRpc
                    ? "kill -HUP does not reload; without --no-rpc, `nvmf4j ctl reload` would"
                    : "kill -HUP does not reload; `nvmf4j ctl reload` does");
        }
        if (signals.stopRequested()) {
            return 0;
        }
        TargetDaemon daemon;
        try {
            limits.applySoftiwarpProperties();
            daemon = TargetDaemon.start(loaded, trace, limits::apply, metricsAt, reservationDir);
        } catch (IOException | RuntimeException e) {
            err.println("nvmf4j serve: " + e.getMessage());
            return 1;
        }
        // SIGTERM / Ctrl-C are the normal way to stop: handled as signals (not only a shutdown hook) so the stop
        // runs while logging still works, and the exit status is 0 rather than 128 + signal; one that came while
        // the daemon started stops it now, before it announces anything
        if (signals.stopRequested()) {
            daemon.close();
            return 0;
        }
        // SIGHUP re-reads --config (Linux daemons' convention; systemd's ExecReload); one received while the
        // daemon started is applied now, before it announces anything
        signals.reloadWith(() -> reload(daemon.live()));
        RpcServer rpc = null;
        if (!noRpc) {
            boolean explicit = rpcSocket != null;
            Path socket = explicit ? rpcSocket : SocketPaths.forServer();
            try {
                rpc = RpcServer.start(socket, new RpcMethods(daemon.live(), config,
                        () -> reloadOrRefuse(daemon.live(), "ctl reload"))::call);
            } catch (IOException | RuntimeException e) {
                if (explicit) {
                    err.println("nvmf4j serve: management socket " + socket + ": " + e.getMessage()
                            + " (--rpc-socket PATH, or --no-rpc)");
                    daemon.close();
                    return 1;
                }
                // the default place is taken (a second daemon of the same user): serve anyway, as before sockets
                System.getLogger(ServeCli.class.getName()).log(System.Logger.Level.WARNING,
                        "management socket {0}: {1}; serving without one (--rpc-socket PATH for another)", socket,
                        e.getMessage());
            }
        }
        if (signals.stopRequested()) {
            if (rpc != null) {
                rpc.close();
            }
            daemon.close();
            return 0;
        }
        Thread hook = new Thread(daemon::close, "nvmf4j-shutdown"); // any other exit: still flush the backends
        Runtime.getRuntime().addShutdownHook(hook);
        System.out.println("nvmf4j serve: listening on " + daemon.listening()
                + (daemon.metricsAddress() == null ? "" : ", metrics on http://"
                + daemon.metricsAddress().getAddress().getHostAddress() + ":" + daemon.metricsAddress().getPort()
                + "/metrics"));
        System.out.flush();
        try {
            signals.awaitStop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (rpc != null) {
            rpc.close();
        }
        daemon.close();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down
        }
        return 0;
    }

    /**
     * Loads --config again and applies what differs; a file that does not load changes nothing. Returns null when
     * nothing could be applied (no --config, or a bad file), with the reason logged.
     */
    ConfigReload.Result reload(LiveTarget live) {
        try {
            return reloadOrRefuse(live, "SIGHUP");
        } catch (RpcError e) {
            return null;
        }
    }

    /**
     * What SIGHUP does, for {@code trigger} (SIGHUP, or {@code ctl reload}: JSON-RPC {@code nvmf4j_reload_config}):
     * the reason nothing could be applied is logged and thrown as a refusal.
     */
    ConfigReload.Result reloadOrRefuse(LiveTarget live, String trigger) throws RpcError {
        System.Logger log = System.getLogger(ServeCli.class.getName());
        if (config == null) {
            log.log(System.Logger.Level.WARNING, "{0}: started without --config; nothing to re-read", trigger);
            throw RpcError.refused("the daemon was started without --config; nothing to re-read");
        }
        log.log(System.Logger.Level.INFO, "{0}: re-reading {1}", trigger, config);
        LoadedConfig loaded;
        try {
            loaded = withCommandLineSettings(configLoader().load(config));
        } catch (ConfigException | RuntimeException e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage().replace('\n', ' ');
            log.log(System.Logger.Level.ERROR, "reload: {0}; nothing changed", why);
            throw RpcError.refused(why + "; nothing changed");
        }
        for (var w : loaded.warnings()) {
            log.log(System.Logger.Level.WARNING, "reload: {0}", w.format(loaded.source()));
        }
        ConfigReload.Result r = ConfigReload.apply(live, loaded.config());
        log.log(System.Logger.Level.INFO, "reload: {0} change(s), {1} problem(s)", r.changes().size(),
                r.problems().size());
        return r;
    }

    LoadedConfig load() throws ConfigException {
        if (config != null) {
            if (transport != null) {
                throw new IllegalArgumentException("nvmf4j serve: --transport applies to --listen; in a --config file"
                        + " each port names its own (addr.trtype)");
            }
            if (!files.isEmpty() || !ram.isEmpty() || nqn != null || serial != null) {
                throw new IllegalArgumentException(
                        "nvmf4j serve: --config cannot be combined with --file, --ram, --nqn or --serial (the file has attr.serial)");
            }
            return withCommandLineSettings(configLoader().load(config));
        }
        if (!allowUnsupported.isEmpty()) {
            throw new IllegalArgumentException("nvmf4j serve: --config-allow-unsupported applies to --config only");
        }
        QuickConfig q = QuickConfig.builder().nqn(nqn).listen(listen);
        if (transport != null) {
            if ("tcp".equals(transport) && provider != null) {
                throw new IllegalArgumentException("nvmf4j serve: --provider chooses the RDMA provider; a --transport"
                        + " tcp port uses none");
            }
            q.transport(transport);
        }
        files.forEach(q::file);
        ram.forEach(q::ram);
        allowHosts.forEach(q::allowHost);
        if (blockSize != null) {
            q.blockSize(blockSize);
        }
        if (provider != null) {
            q.provider(parseProvider(provider));
        }
        if (pollGroups != null) {
            q.pollGroups(pollGroups);
        }
        if (metricsPort != null) {
            q.metricsPort(metricsPort);
        }
        return withSerial(withCommandLineSettings(q.build()));
    }

    /** The loader for --config: every unsupported security or host-visible field refused but those allowed. */
    ConfigLoader configLoader() {
        Set<UnsupportedFeature> allowed = new HashSet<>();
        for (String name : allowUnsupported) {
            allowed.add(UnsupportedFeature.fromFlagName(name).orElseThrow(() ->
                    new IllegalArgumentException("--config-allow-unsupported: \"" + name + "\" is not one of "
                            + UnsupportedFeature.flagNames())));
        }
        return ConfigLoader.standard().allowingUnsupported(allowed);
    }

    /** --serial for the quick form's one subsystem (Identify Controller SN: printable ASCII, at most 20). */
    private LoadedConfig withSerial(LoadedConfig loaded) {
        if (serial == null) {
            return loaded;
        }
        if (serial.isEmpty() || serial.length() > 20 || !serial.chars().allMatch(c -> c >= 0x20 && c <= 0x7E)) {
            throw new IllegalArgumentException("--serial: \"" + serial
                    + "\" must be 1 to 20 printable ASCII characters (Identify Controller SN)");
        }
        TargetConfig c = loaded.config();
        List<SubsystemConfig> subs = c.subsystems().stream().map(s -> {
            SubsystemAttributes a = s.attr();
            return new SubsystemConfig(s.nqn(), new SubsystemAttributes(
                    a.allowAnyHost(), serial, a.model(), a.version(), a.cntlidMin(), a.cntlidMax(), a.qidMax(),
                    a.firmware(), a.ieeeOui()), s.allowedHosts(), s.namespaces());
        }).toList();
        return new LoadedConfig(new TargetConfig(c.hosts(), c.ports(), subs, c.nvmf4j()), loaded.warnings(),
                loaded.source());
    }

    /**
     * --provider, --poll-groups, --spin-budget and --metrics-port also apply to a --config file and win over its "nvmf4j"
     * section, as a command-line flag does over a file everywhere else.
     */
    private LoadedConfig withCommandLineSettings(LoadedConfig loaded) {
        TargetConfig c = loaded.config();
        Nvmf4jSettings s = c.nvmf4j() != null ? c.nvmf4j() : Nvmf4jSettings.defaults();
        Nvmf4jSettings shared = limits.apply(s);
        if (shared != s) {
            loaded = new LoadedConfig(new TargetConfig(c.hosts(), c.ports(), c.subsystems(), shared),
                    loaded.warnings(), loaded.source());
            c = loaded.config();
            s = shared;
        }
        if (provider == null && pollGroups == null && metricsPort == null && spinBudgetMicros == null
                && backendIo == null && backendTimeoutSeconds == null) {
            return loaded;
        }
        Nvmf4jSettings merged = new Nvmf4jSettings(
                provider != null ? parseProvider(provider) : s.provider(),
                pollGroups != null ? pollGroups : s.pollGroups(),
                spinBudgetMicros != null ? spinBudgetMicros : s.spinBudgetMicros(), s.bufferCount(), s.bufferSize(), s.maxQueueSize(), s.inlineDataSize(), s.mdts(),
                s.discoveryKatoMillis(),
                metricsPort != null ? metricsPort : s.metricsPort(),
                s.defaultBlockSize(),
                backendIo != null ? BackendIoMode.parse(backendIo).label() : s.backendIo(),
                backendTimeoutSeconds != null ? backendTimeoutMillis(backendTimeoutSeconds)
                        : s.backendTimeoutMillis(),
                s.maxControllersPerHost(), s.maxControllersPerAddress());
        return new LoadedConfig(new TargetConfig(c.hosts(), c.ports(), c.subsystems(), merged),
                loaded.warnings(), loaded.source());
    }

    private static int backendTimeoutMillis(int seconds) {
        if (seconds < 1 || seconds > 3600) {
            throw new IllegalArgumentException("--backend-timeout must be between 1 and 3600 seconds, got " + seconds);
        }
        return seconds * 1000;
    }

    /** The literal only: a name here would resolve through DNS at start, and may mean an unexpected interface. */
    java.net.InetAddress metricsInetAddress() {
        try {
            return java.net.InetAddress.ofLiteral(metricsAddress);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--metrics-address: \"" + metricsAddress
                    + "\" is not an IP address (e.g. 127.0.0.1, 0.0.0.0, ::1)");
        }
    }

    static OneLineLogFormat.Style logStyle(String format, String journalStream) {
        if (format == null) {
            return journalStream != null && !journalStream.isEmpty() ? OneLineLogFormat.Style.JOURNAL
                    : OneLineLogFormat.Style.TEXT;
        }
        return switch (format.toLowerCase(Locale.ROOT)) {
            case "text" -> OneLineLogFormat.Style.TEXT;
            case "journal" -> OneLineLogFormat.Style.JOURNAL;
            default -> throw new IllegalArgumentException("--log-format: \"" + format + "\" is not text or journal");
        };
    }

    private static Provider parseProvider(String name) {
        for (Provider p : Provider.values()) {
            if (p.jsonName().equals(name.toLowerCase(Locale.ROOT))) {
                return p;
            }
        }
        throw new IllegalArgumentException("--provider: unknown provider \"" + name + "\" (softiwarp, ibverbs, auto)");
    }
}
