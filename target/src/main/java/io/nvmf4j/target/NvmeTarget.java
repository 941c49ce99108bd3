package io.nvmf4j.target;

import io.nvmf4j.protocol.Nqn;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The target's configuration root and shared services, like the globals of Linux nvmet ({@code nvmet_ports},
 * the subsystem list, {@code nvmet_disc_subsys}, {@code nvmet_genctr}, the workqueue that runs keep-alive timers).
 *
 * <p>The discovery generation counter ({@link #discoveryGeneration()}) changes whenever what a discovery log could
 * show changes: a subsystem exported through or withdrawn from a port, a host allowed or disallowed, allow-any-host
 * switched. Discovery controllers connected through the affected port then get a Discovery Log Page Change event
 * (nvmet_port_disc_changed()).
 *
 * <p>Transports attach a connection with {@link #createQueue(Port, TransportQueue)}.
 */
public final class NvmeTarget implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(NvmeTarget.class.getName());

    private final Subsystem discovery = Subsystem.discovery();
    private final Map<SubsystemNqn, Subsystem> subsystems = new ConcurrentHashMap<>();
    private final List<Port> ports = new CopyOnWriteArrayList<>();
    private final AtomicLong generation = new AtomicLong(1);
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "nvmf4j-target-timers");
        t.setDaemon(true);
        return t;
    });

    private volatile java.nio.file.Path reservationDirectory;
    /** Threads computing DH-HMAC-CHAP steps: one or two (the DH work of a step is single-threaded). */
    static final int AUTHENTICATION_THREADS = Math.min(2, Runtime.getRuntime().availableProcessors());
    /**
     * Steps that may wait for an authentication thread; beyond, the exchange fails (metric reason {@code busy}).
     * An ffdhe8192 step takes about 10-20 ms, so a full queue is served within a few hundred ms, far inside the
     * authentication timeout; each waiting step holds at most {@link QueueAuthentication#MAX_TRANSFER} bytes.
     */
    static final int AUTHENTICATION_QUEUE = 64;
    private final AtomicInteger authThreadIds = new AtomicInteger();
    private final ThreadPoolExecutor authentication = new ThreadPoolExecutor(AUTHENTICATION_THREADS,
            AUTHENTICATION_THREADS, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(AUTHENTICATION_QUEUE), r -> {
                Thread t = new Thread(r, "nvmf4j-auth-" + authThreadIds.incrementAndGet());
                t.setDaemon(true);
                return t;
            }, new ThreadPoolExecutor.AbortPolicy());
    private volatile Executor authenticationExecutor = authentication;

    public NvmeTarget() {
        subsystems.put(discovery.nqn(), discovery);
    }

    /** The well-known discovery subsystem, reachable through every port. */
    public Subsystem discoverySubsystem() {
        return discovery;
    }

    public void addSubsystem(Subsystem subsystem) {
        if (subsystem.isDiscovery()) {
            throw new IllegalArgumentException("the discovery subsystem is built in");
        }
        if (subsystems.putIfAbsent(subsystem.nqn(), subsystem) != null) {
            throw new IllegalArgumentException("subsystem " + subsystem.nqn() + " already exists");
        }
        subsystem.onHostListChange(() -> configurationChanged(null));
        java.nio.file.Path dir = reservationDirectory;
        if (dir != null) {
            try {
                subsystem.persistReservationsIn(dir);
            } catch (java.io.IOException e) {
                subsystems.remove(subsystem.nqn(), subsystem);
                throw new java.io.UncheckedIOException(subsystem.nqn() + ": " + e.getMessage(), e);
            }
        }
        LOG.log(Level.INFO, "added {0}", subsystem);
    }

    /** Removes a subsystem from every port and from the target; its controllers' queues are disconnected. */
    public void removeSubsystem(Subsystem subsystem) {
        if (subsystems.remove(subsystem.nqn(), subsystem)) {
            for (Port p : ports) {
                p.removeSubsystem(subsystem);
            }
            for (Controller c : subsystem.controllers()) {
                c.fatalError("subsystem removed");
            }
        }
    }

    /**
     * Makes reservations persistable through power loss (NVMe Base 2.0, 8.19.10; Identify Namespace RESCAP bit 0):
     * each namespace keeps its state, once a host asks for PTPL, in a file under {@code dir}, written atomically;
     * namespaces whose file holds such a state (the target ran before) get it back now.
     */
    public void persistReservationsIn(java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Files.createDirectories(dir);
        reservationDirectory = dir;
        for (Subsystem s : subsystems.values()) {
            if (!s.isDiscovery()) {
                s.persistReservationsIn(dir);
            }
        }
    }

    public Subsystem subsystem(Nqn nqn) {
        return subsystems.get(SubsystemNqn.of(nqn));
    }

    public Subsystem subsystem(SubsystemNqn nqn) {
        return subsystems.get(nqn);
    }

    public List<Subsystem> subsystems() {
        return List.copyOf(subsystems.values());
    }

    public void addPort(Port port) {
        if (ports.stream().anyMatch(p -> p.portId() == port.portId())) {
            throw new IllegalArgumentException("port " + port.portId() + " already exists");
        }
        ports.add(port);
        port.onSubsystemsChange(() -> configurationChanged(port));
        port.onAnaChange(() -> anaChanged(port));
        configurationChanged(port);
    }

    /**
     * Withdraws a port (nvmetcli deleting a port: nvmet_port_subsys_drop_link() for every subsystem, then
     * nvmet_port_del_ctrls()): discovery stops showing it and the controllers connected through it are disconnected.
     * The transport stops accepting on it first (the caller's part).
     */
    public void removePort(Port port) {
        if (!ports.remove(port)) {
            return;
        }
        for (Subsystem s : port.subsystems()) {
            port.removeSubsystem(s);
        }
        for (Subsystem s : subsystems.values()) {
            for (Controller c : s.controllers()) {
                if (c.port() == port) {
                    c.fatalError("port " + port.portId() + " removed");
                }
            }
        }
        configurationChanged(null);
    }

    public List<Port> ports() {
        return List.copyOf(ports);
    }

    /**
     * The subsystem a Connect on {@code port} names (nvmet_find_get_subsys()): the discovery subsystem by its
     * well-known NQN on any port, otherwise only a subsystem exported through that port; null if none.
     */
    public Subsystem findSubsystem(Port port, String nqn) {
        if (Nqn.DISCOVERY_VALUE.equals(nqn)) {
            return discovery;
        }
        for (Subsystem s : port.subsystems()) {
            if (s.nqn().value().equals(nqn)) {
                return s;
            }
        }
        return null;
    }

    /** nvmet_port_send_ana_event(): every controller connected through {@code port} hears of an ANA change. */
    private void anaChanged(Port port) {
        for (Subsystem s : port.subsystems()) {
            for (Controller c : s.controllers()) {
                if (c.port() == port) {
                    c.asyncEvents().anaChanged();
                }
            }
        }
    }

    /** The discovery log generation counter (GENCTR of log page 70h). */
    public long discoveryGeneration() {
        return generation.get();
    }

    /** nvmet_genctr++ and a discovery change event to the discovery controllers on the port (or all ports). */
    void configurationChanged(Port port) {
        long g = generation.incrementAndGet();
        LOG.log(Level.DEBUG, "discovery generation {0}", g);
        for (Controller c : discovery.controllers()) {
            if (port == null || c.port() == port) {
                c.discoveryLogChanged();
            }
        }
    }

    /**
     * A new queue for a transport connection on {@code port}, not yet bound to a controller: its first command
     * must be a Connect (nvmet_sq_init()).
     */
    public SubmissionQueue createQueue(Port port, TransportQueue transport) {
        Objects.requireNonNull(port, "port");
        Objects.requireNonNull(transport, "transport");
        return new SubmissionQueue(this, port, transport);
    }

    private volatile ControllerShare controllerShare = ControllerShare.defaults();

    /** The share of each subsystem's controllers one host NQN and one source address may hold. */
    public void controllerShare(ControllerShare share) {
        this.controllerShare = java.util.Objects.requireNonNull(share, "share");
    }

    public ControllerShare controllerShare() {
        return controllerShare;
    }

    private volatile AuthenticationObserver authenticationObserver = AuthenticationObserver.NONE;
    private volatile java.time.Duration authenticationTimeout = DEFAULT_AUTHENTICATION_TIMEOUT;
    private final java.security.SecureRandom secureRandom = new java.security.SecureRandom();

    /**
     * How long one DH-HMAC-CHAP transaction may take, from Connect (or from the host's AUTH_Negotiate of a
     * re-authentication) to its end: 60 s. nvmet waits KATO or 120 s per step ({@code nvmet_auth_expired_work()})
     * and then only resets the step; here a queue that has not authenticated by then is disconnected, so a peer that
     * stops holds nothing past the bound. Not shorter: a Linux host does its DH work between Challenge and Reply
     * and sends nothing meanwhile, and its first ffdhe8192 exchange also runs the kernel's crypto self-test; the
     * 6.12 host of the interop lab (an emulated CPU) took 7.4 s, 8.2 s and more than 10 s for that one step.
     * Until the admin queue authenticates this deadline, not keep-alive, bounds the controller.
     */
    public static final java.time.Duration DEFAULT_AUTHENTICATION_TIMEOUT = java.time.Duration.ofMinutes(1);

    /** Receives the outcome of every DH-HMAC-CHAP transaction (metrics). */
    public void authenticationObserver(AuthenticationObserver observer) {
        this.authenticationObserver = observer == null ? AuthenticationObserver.NONE : observer;
    }

    AuthenticationObserver authenticationObserver() {
        return authenticationObserver;
    }

    /** See {@link #DEFAULT_AUTHENTICATION_TIMEOUT}. */
    public void authenticationTimeout(java.time.Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("authentication timeout must be positive: " + timeout);
        }
        this.authenticationTimeout = timeout;
    }

    public java.time.Duration authenticationTimeout() {
        return authenticationTimeout;
    }

    private volatile io.nvmf4j.target.backend.BackendSettings backendSettings =
            io.nvmf4j.target.backend.BackendSettings.DEFAULT;

    /**
     * How file and block-device namespaces run their I/O: read by each transport when it starts its poll groups,
     * so set it before starting one.
     */
    public void backendSettings(io.nvmf4j.target.backend.BackendSettings settings) {
        this.backendSettings = java.util.Objects.requireNonNull(settings, "settings");
    }

    public io.nvmf4j.target.backend.BackendSettings backendSettings() {
        return backendSettings;
    }

    java.security.SecureRandom secureRandom() {
        return secureRandom;
    }

    ScheduledExecutorService timers() {
        return timers;
    }

    /**
     * Where DH-HMAC-CHAP steps are computed, off every queue's thread (Linux nvmet: a work queue): a bounded pool of
     * {@link #AUTHENTICATION_THREADS} daemon threads {@code nvmf4j-auth-N} (created on first use) with room for
     * {@link #AUTHENTICATION_QUEUE} waiting steps; {@code execute} throws RejectedExecutionException when full.
     */
    Executor authenticationExecutor() {
        return authenticationExecutor;
    }

    /** For tests: computes the steps elsewhere (to hold one, or to reject like a full queue). */
    void authenticationExecutor(Executor executor) {
        this.authenticationExecutor = executor == null ? authentication : executor;
    }

    /** Stops the timers and the authentication threads and closes every namespace backend (after flushing it). */
    @Override
    public void close() {
        timers.shutdownNow();
        authentication.shutdownNow();
        for (Subsystem s : subsystems.values()) {
            for (Controller c : s.controllers()) {
                c.fatalError("target shutting down");
            }
            for (SubsystemNamespace ns : s.namespaces()) {
                try {
                    ns.backend().flush();
                } catch (Exception e) {
                    LOG.log(Level.WARNING, "flushing {0} at shutdown: {1}", ns, e.getMessage());
                }
                ns.backend().close();
            }
        }
        try {
            timers.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
