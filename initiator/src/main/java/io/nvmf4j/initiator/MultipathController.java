package io.nvmf4j.initiator;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.admin.NamespaceDescriptor;
import io.nvmf4j.protocol.log.AnaLogPage;
import io.nvmf4j.protocol.log.AnaState;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One NVM subsystem reached over several paths, each path one {@link NvmeController} (Linux's
 * {@code struct nvme_subsystem} with one {@code struct nvme_ns_head} per namespace, {@code drivers/nvme/host/
 * multipath.c}). Its {@link MultipathNamespace}s send each I/O down a path chosen by ANA state (optimized first,
 * then non-optimized; {@code __nvme_find_path()}) and the {@link MultipathPolicy} among equals, and send an I/O
 * that fails with a path error down another path ({@code nvme_failover_req()}), so the caller sees no error while
 * any path lives.
 *
 * <p>At connect every path must report the same subsystem NQN and, for each namespace, the same identity (NGUID,
 * EUI-64 and the UUID descriptor; {@code nvme_ns_ids_equal()}) and format; a path that does not is refused. Each
 * path's ANA log page (0Ch) is read at connect, after every ANA change notice and reconnect ({@link NvmeController#onAnaChange}), and
 * after an I/O failed with an ANA status (NVMe Base 2.0, 8.1.3; {@code nvme_update_ana()}). Each path keeps
 * reconnecting by itself (ctrl-loss-tmo); it is used again once live.
 */
public final class MultipathController implements AutoCloseable {

    private static final Logger LOG = System.getLogger(MultipathController.class.getName());
    /** How often waiting I/O looks for a usable path again (Linux requeues on every path state change). */
    static final long REQUEUE_MILLIS = 20;

    private final NvmeController[] paths;
    private final MultipathPolicy policy;
    private final long noPathTimeoutNanos;
    private final Map<Long, MultipathNamespace> namespaces = new LinkedHashMap<>();
    final ScheduledExecutorService requeue;
    /** I/Os in flight per path (Linux's nr_active, for queue-depth). */
    final AtomicInteger[] active;
    /** When each path's ANA log was last asked for after an ANA status (System.nanoTime()). */
    private final AtomicLongArray anaRequested;
    private final AtomicInteger nextPath = new AtomicInteger();
    private final Nqn subsystemNqn;

    private MultipathController(List<NvmeController> connected, MultipathPolicy policy, Duration noPathTimeout)
            throws NvmfException {
        this.paths = connected.toArray(NvmeController[]::new);
        this.policy = policy;
        this.noPathTimeoutNanos = noPathTimeout.toNanos();
        this.active = new AtomicInteger[paths.length];
        this.anaRequested = new AtomicLongArray(paths.length);
        for (int i = 0; i < paths.length; i++) {
            active[i] = new AtomicInteger();
            anaRequested.set(i, System.nanoTime() - 1_000_000_000L);
        }
        this.requeue = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nvmf4j-mpath-requeue");
            t.setDaemon(true);
            return t;
        });
        this.subsystemNqn = subsystemNqn(paths[0].name(), paths[0].identify());
        checkIdentity();
        for (int i = 0; i < paths.length; i++) {
            int index = i;
            paths[i].onAnaChange(page -> anaChanged(index, page));
            anaChanged(i, paths[i].anaLog());
        }
    }

    /**
     * Connects every path (at least one must connect; the others are logged and left out, as {@code nvme
     * connect-all} does) and checks they lead to the same subsystem and namespaces.
     *
     * @param noPathTimeout how long an I/O waits for a usable path (all paths inaccessible or reconnecting)
     *                      before it fails to the caller; Linux waits while a controller lives (ctrl-loss-tmo)
     */
    public static MultipathController connect(List<ConnectOptions> paths, MultipathPolicy policy,
            Duration noPathTimeout) throws NvmfException {
        if (paths.isEmpty()) {
            throw new IllegalArgumentException("multipath needs at least one path");
        }
        List<NvmeController> connected = new ArrayList<>();
        NvmfException first = null;
        for (ConnectOptions o : paths) {
            try {
                connected.add(NvmeController.connect(o));
            } catch (NvmfException e) {
                LOG.log(Level.WARNING, "path " + o.address() + " not connected: " + e.getMessage());
                first = first == null ? e : first;
            }
        }
        if (connected.isEmpty()) {
            throw first;
        }
        try {
            return new MultipathController(connected, policy, noPathTimeout);
        } catch (NvmfException | RuntimeException e) {
            connected.forEach(NvmeController::close);
            throw e;
        }
    }

    /** {@link #connect(List, MultipathPolicy, Duration)} with round-robin and the paths' longest ctrl-loss-tmo. */
    public static MultipathController connect(List<ConnectOptions> paths) throws NvmfException {
        Duration wait = Duration.ZERO;
        for (ConnectOptions o : paths) {
            Duration d = o.ctrlLossTimeout().isNegative() ? Duration.ofDays(1) : o.ctrlLossTimeout();
            wait = d.compareTo(wait) > 0 ? d : wait;
        }
        return connect(paths, MultipathPolicy.ROUND_ROBIN, wait);
    }

    /**
     * The paths the discovery logs offer to subsystem {@code nqn} (like {@code nvme connect-all} filtered on one
     * NQN): {@code template} with each distinct entry's address. A discovery controller lists the port it was
     * reached through (nvmet, nvmf4j), so pass the log of each port to find them all.
     */
    public static List<ConnectOptions> pathsFromDiscovery(Nqn nqn, ConnectOptions template, DiscoveryLog... logs) {
        List<ConnectOptions> out = new ArrayList<>();
        java.util.Set<InetSocketAddress> seen = new java.util.HashSet<>();
        for (DiscoveryLog log : logs) {
            for (DiscoveryRecord r : log.subsystems()) {
                if (!r.subnqn().equals(nqn.value())) {
                    continue;
                }
                InetSocketAddress a;
                try {
                    a = new InetSocketAddress(r.traddr(), Integer.parseInt(r.trsvcid()));
                } catch (IllegalArgumentException e) {
                    LOG.log(Level.WARNING, "discovery entry for " + nqn + " at '" + r.traddr() + "' port '"
                            + r.trsvcid() + "' is not usable: " + e.getMessage());
                    continue;
                }
                if (seen.add(a)) {
                    out.add(template.toBuilder().subsystemNqn(nqn).address(a).build());
                }
            }
        }
        return out;
    }

    /**
     * SUBNQN of Identify Controller through one path, which every path must share. The connect itself does not
     * read it, so a controller reporting an empty or invalid one is refused here, with a protocol error naming the
     * field rather than the decoder's exception.
     */
    static Nqn subsystemNqn(String name, IdentifyController identify) throws NvmfException {
        try {
            return identify.subsystemNqn();
        } catch (MalformedStructureException e) {
            throw new NvmfException(name + ": Identify Controller SUBNQN is not a valid NQN: " + e.getMessage(), e);
        }
    }

    /** nvme_ns_ids_equal() and nvme_init_ns_head(): same subsystem, same namespace identity and format on every path. */
    private void checkIdentity() throws NvmfException {
        NvmeController base = paths[0];
        for (Namespace ns : base.namespaces()) {
            namespaces.put(ns.nsid(), null);
        }
        for (int i = 1; i < paths.length; i++) {
            Nqn nqn = subsystemNqn(paths[i].name(), paths[i].identify());
            if (!subsystemNqn.equals(nqn)) {
                throw new NvmfException(paths[i].options().address() + " leads to subsystem " + nqn + ", not "
                        + subsystemNqn + ": not a path of the same subsystem");
            }
        }
        for (long nsid : List.copyOf(namespaces.keySet())) {
            Namespace[] per = new Namespace[paths.length];
            IdentifyNamespace id = base.namespace(nsid).orElseThrow().identify();
            byte[] uuid = uuidOf(base, nsid);
            for (int i = 0; i < paths.length; i++) {
                Optional<Namespace> ns = paths[i].namespace(nsid);
                if (ns.isEmpty()) {
                    continue; // not attached through this path (yet): no I/O for it there
                }
                IdentifyNamespace other = ns.get().identify();
                if (!Arrays.equals(id.nguid(), other.nguid()) || !Arrays.equals(id.eui64(), other.eui64())
                        || (i > 0 && !Arrays.equals(uuid, uuidOf(paths[i], nsid)))
                        || ns.get().blockSize() != id.blockSize() || ns.get().blockCount() != id.nsze()) {
                    throw new NvmfException("nsid " + nsid + " through " + paths[i].options().address()
                            + " has another identity (NGUID/EUI-64/UUID) or format than through "
                            + base.options().address() + ": not the same namespace");
                }
                per[i] = ns.get();
            }
            namespaces.put(nsid, new MultipathNamespace(this, per[0], per));
        }
    }

    /** The UUID descriptor of {@code nsid} through {@code c} (nvme_ns_ids_equal() compares it too), or null. */
    private static byte[] uuidOf(NvmeController c, long nsid) throws NvmfException {
        for (NamespaceDescriptor d : c.namespaceDescriptors(nsid)) {
            if (d.type() == NamespaceDescriptor.NIDT_UUID) {
                return d.id();
            }
        }
        return null;
    }

    // ---- path state -----------------------------------------------------------------------------------------

    /** nvme_update_ana_state(): each namespace takes the state of its ANA group (ANAGRPID) on that path. */
    private void anaChanged(int path, AnaLogPage page) {
        for (MultipathNamespace ns : namespaces.values()) {
            Namespace p = ns.path(path);
            if (p == null) {
                continue;
            }
            AnaState state = AnaState.OPTIMIZED; // a controller without ANA reporting: every path is optimized
            int grpid = p.identify().anagrpid();
            for (AnaLogPage.Group g : page.groups()) {
                if (g.grpid() == grpid) {
                    state = g.state();
                }
            }
            AnaState before = ns.anaState(path);
            ns.anaState(path, state);
            if (before != state) {
                LOG.log(Level.INFO, paths[path].name() + " via " + paths[path].options().address() + ": nsid "
                        + ns.nsid() + " ANA group " + grpid + " "
                        + (before == null ? "" : before.label() + " -> ") + state.label());
            }
        }
    }

    /**
     * nvme_failover_req(): an ANA status (sct 3h, sc 01h..03h) marks the namespace on that path with the state the
     * status implies at once and re-reads the path's ANA log (once, however many I/Os failed).
     */
    void anaError(int path, MultipathNamespace ns, AnaState implied) {
        AnaState before = ns.anaState(path);
        ns.anaState(path, implied);
        if (before != implied) {
            LOG.log(Level.INFO, paths[path].name() + " via " + paths[path].options().address() + ": nsid "
                    + ns.nsid() + " ANA status: " + (before == null ? "" : before.label() + " -> ")
                    + implied.label());
        }
        long now = System.nanoTime();
        long last = anaRequested.get(path);
        // once per burst: many I/Os fail with the same status; a read that failed is asked again 100 ms later
        if (now - last > 100_000_000L && anaRequested.compareAndSet(path, last, now)) {
            // on the path's event thread (Linux: queue_work(ana_work)), not here: the requeue thread never blocks
            paths[path].requestAnaUpdate();
        }
    }

    /**
     * __nvme_find_path() with nvme_round_robin_path() / nvme_queue_depth_path(): among the live paths where the
     * namespace is optimized, the next one or the least busy; else likewise among the non-optimized; -1 if none.
     */
    int findPath(MultipathNamespace ns) {
        int n = paths.length;
        int start = policy == MultipathPolicy.ROUND_ROBIN ? Math.floorMod(nextPath.getAndIncrement(), n) : 0;
        int optimized = -1;
        int nonOptimized = -1;
        for (int k = 0; k < n; k++) {
            int i = (start + k) % n;
            if (ns.path(i) == null || paths[i].state() != ControllerState.LIVE) {
                continue; // nvme_path_is_disabled()
            }
            AnaState s = ns.anaState(i);
            if (s == AnaState.OPTIMIZED) {
                if (optimized < 0 || active[i].get() < active[optimized].get()) {
                    optimized = i;
                }
                if (policy == MultipathPolicy.ROUND_ROBIN) {
                    break;
                }
            } else if (s == AnaState.NON_OPTIMIZED) {
                if (nonOptimized < 0 || active[i].get() < active[nonOptimized].get()) {
                    nonOptimized = i;
                }
            }
        }
        return optimized >= 0 ? optimized : nonOptimized;
    }

    /** nvme_available_path(): some path may still come back (live, or reconnecting within ctrl-loss-tmo). */
    boolean availablePath() {
        for (NvmeController c : paths) {
            ControllerState s = c.state();
            if (s == ControllerState.LIVE || s == ControllerState.RECONNECTING) {
                return true;
            }
        }
        return false;
    }

    long noPathTimeoutNanos() {
        return noPathTimeoutNanos;
    }

    // ---- accessors ------------------------------------------------------------------------------------------

    public Nqn subsystemNqn() {
        return subsystemNqn;
    }

    /** The controllers, one per path, in the order given. */
    public List<NvmeController> paths() {
        return List.of(paths);
    }

    public MultipathPolicy policy() {
        return policy;
    }

    public List<MultipathNamespace> namespaces() {
        return List.copyOf(namespaces.values());
    }

    public Optional<MultipathNamespace> namespace(long nsid) {
        return Optional.ofNullable(namespaces.get(nsid));
    }

    public MultipathNamespace firstNamespace() throws NvmfException {
        return namespaces.values().stream().findFirst()
                .orElseThrow(() -> new NvmfException(subsystemNqn + ": the subsystem has no active namespace"));
    }

    /** The ANA state of {@code nsid} on each path, in path order (null: not reachable there). */
    public List<AnaState> anaStates(long nsid) {
        MultipathNamespace ns = namespaces.get(nsid);
        List<AnaState> out = new ArrayList<>();
        for (int i = 0; i < paths.length; i++) {
            out.add(ns == null ? null : ns.anaState(i));
        }
        return out;
    }

    /** I/Os sent down each path so far (diagnostics: which path carries the load). */
    public List<Long> submittedPerPath() {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < paths.length; i++) {
            long n = 0;
            for (MultipathNamespace ns : namespaces.values()) {
                n += ns.submitted(i);
            }
            out.add(n);
        }
        return out;
    }

    @Override
    public void close() {
        requeue.shutdownNow();
        for (NvmeController c : paths) {
            c.close();
        }
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(subsystemNqn.toString()).append(" over");
        for (NvmeController c : paths) {
            b.append(' ').append(c.options().address()).append(' ').append(c.state());
        }
        return b.toString();
    }
}
