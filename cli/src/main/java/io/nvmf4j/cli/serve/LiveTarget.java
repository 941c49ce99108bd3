package io.nvmf4j.cli.serve;

import io.nvmf4j.config.AnaGroup;
import io.nvmf4j.config.DeviceConfig.FileDevice;
import io.nvmf4j.config.DeviceConfig.RamDevice;
import io.nvmf4j.config.DhchapConfig;
import io.nvmf4j.config.HostConfig;
import io.nvmf4j.config.NamespaceConfig;
import io.nvmf4j.config.Nvmf4jSettings;
import io.nvmf4j.config.PortConfig;
import io.nvmf4j.config.Referral;
import io.nvmf4j.config.SubsystemAttributes;
import io.nvmf4j.config.SubsystemConfig;
import io.nvmf4j.config.TargetConfig;
import io.nvmf4j.target.Controller;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubsystemNamespace;
import io.nvmf4j.target.SubsystemNqn;
import io.nvmf4j.target.TargetConfigurator;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static io.nvmf4j.cli.serve.NamespaceBackends.closeBackend;
import static io.nvmf4j.cli.serve.NamespaceBackends.open;
import static io.nvmf4j.cli.serve.NamespaceBackends.setLength;
import static io.nvmf4j.cli.serve.RpcParams.nqnOf;
import static io.nvmf4j.cli.serve.RpcParams.parseBoolean;
import static io.nvmf4j.cli.serve.RpcParams.requireText;

/**
 * The running target together with the configuration it runs, changed only through the operations here (what
 * nvmetcli does through configfs): the RPC socket and SIGHUP reload both come here, one at a time (every operation
 * holds this object's lock), and each keeps {@link #config()} equal to what runs, so {@code save} writes the truth.
 *
 * <p>No operation waits for the data path: the target's lookups are copy-on-write (a poll group sees the old or the
 * new namespace table, never a lock), events to hosts are queued on their admin queues.
 */
public final class LiveTarget implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LiveTarget.class.getName());

    /** Where ports start and stop accepting connections (the RDMA transport). */
    public interface Listeners {
        void listen(Port port) throws IOException;

        void stopListening(Port port);
    }

    private final NvmeTarget target;
    private final Listeners listeners;
    private TargetConfig config;
    private final NamespaceBackends backends = new NamespaceBackends();
    private final LiveHosts hosts = new LiveHosts(this);
    private final LivePorts ports = new LivePorts(this);

    public LiveTarget(NvmeTarget target, TargetConfig config, Listeners listeners) {
        this.target = target;
        this.config = config.nvmf4j() != null ? config
                : new TargetConfig(config.hosts(), config.ports(), config.subsystems(), Nvmf4jSettings.defaults());
        this.listeners = listeners;
    }

    public NvmeTarget target() {
        return target;
    }

    /** The configuration that runs now (what {@code save_config} writes). */
    public synchronized TargetConfig config() {
        return config;
    }

    /**
     * What {@code save_config} writes: the running configuration with each subsystem's serial filled in where the
     * file had none, so a restart (or nvmetcli restore, which would otherwise pick a random one) keeps the identity
     * hosts already saw.
     */
    public synchronized TargetConfig configWithIdentity() {
        List<SubsystemConfig> subs = new ArrayList<>();
        for (SubsystemConfig sc : config.subsystems()) {
            SubsystemAttributes a = sc.attr();
            Subsystem s = target.subsystem(SubsystemNqn.of(sc.nqn()));
            if (a.serial() == null && s != null) {
                a = new SubsystemAttributes(a.allowAnyHost(), s.serial(), a.model(), a.version(), a.cntlidMin(),
                        a.cntlidMax(), a.qidMax(), a.firmware(), a.ieeeOui());
            }
            subs.add(new SubsystemConfig(sc.nqn(), a, sc.allowedHosts(), sc.namespaces()));
        }
        return withSubsystems(subs);
    }

    // ---- subsystems ----

    public synchronized void createSubsystem(String nqn, String serial, String model, boolean allowAnyHost)
            throws RpcError {
        SubsystemNqn name = nqnOf(nqn);
        if (target.subsystem(name) != null) {
            throw RpcError.refused("subsystem " + nqn + " already exists");
        }
        createSubsystem(new SubsystemConfig(nqn, new SubsystemAttributes(allowAnyHost, serial, model, null,
                SubsystemAttributes.CNTLID_MIN, SubsystemAttributes.CNTLID_MAX, null, null, null), List.of(),
                List.of()));
    }

    /** A subsystem as a config file describes it, its namespaces opened (reload adds subsystems this way). */
    public synchronized void createSubsystem(SubsystemConfig sc) throws RpcError {
        String nqn = sc.nqn();
        if (target.subsystem(nqnOf(nqn)) != null) {
            throw RpcError.refused("subsystem " + nqn + " already exists");
        }
        try {
            target.addSubsystem(TargetConfigurator.subsystem(sc, config.hosts()));
        } catch (IOException | RuntimeException e) {
            throw RpcError.invalidParams(e.getMessage());
        }
        List<SubsystemConfig> subs = new ArrayList<>(config.subsystems());
        subs.add(sc);
        config = withSubsystems(subs);
        List<HostConfig> hosts = new ArrayList<>(config.hosts());
        sc.allowedHosts().stream().filter(h -> hosts.stream().noneMatch(d -> d.nqn().equals(h)))
                .forEach(h -> hosts.add(new HostConfig(h)));
        config = new TargetConfig(hosts, config.ports(), config.subsystems(), config.nvmf4j());
        LOG.log(Level.INFO, "created subsystem {0}", nqn);
    }

    /** nvmetcli delete of a subsystem: off every port, controllers disconnected, namespaces flushed and closed. */
    public synchronized void deleteSubsystem(String nqn) throws RpcError {
        Subsystem s = subsystem(nqn);
        target.removeSubsystem(s);
        for (SubsystemNamespace ns : s.namespaces()) {
            retire(ns);
        }
        config = withSubsystems(config.subsystems().stream().filter(c -> !c.nqn().equals(nqn)).toList());
        List<PortConfig> ports = new ArrayList<>();
        for (PortConfig p : config.ports()) {
            ports.add(withPortSubsystems(p, p.subsystems().stream().filter(n -> !n.equals(nqn)).toList()));
        }
        config = withPorts(ports);
        LOG.log(Level.INFO, "deleted subsystem {0}", nqn);
    }

    /** Attributes nvmet lets change on a live subsystem: allow_any_host always; serial and model before any host. */
    public synchronized void setAttribute(String nqn, String name, String value) throws RpcError {
        Subsystem s = subsystem(nqn);
        SubsystemConfig sc = subsystemConfig(nqn);
        SubsystemAttributes a = sc.attr();
        try {
            switch (name) {
                case "allow_any_host" -> {
                    boolean allow = parseBoolean(name, value);
                    if (allow && !sc.allowedHosts().isEmpty()) {
                        // nvmet_subsys_attr_allow_any_host_store(): "Can't set allow_any_host when explicit hosts
                        // are set"; a saved file with both would not load again (here or in nvmetcli)
                        throw RpcError.refused(nqn + " lists " + sc.allowedHosts().size()
                                + " allowed host(s); remove them before setting allow_any_host");
                    }
                    s.allowAnyHost(allow);
                    a = new SubsystemAttributes(allow, a.serial(), a.model(), a.version(), a.cntlidMin(),
                            a.cntlidMax(), a.qidMax(), a.firmware(), a.ieeeOui());
                    if (!allow) {
                        disconnectDisallowed(s);
                    }
                }
                case "serial" -> {
                    s.serial(value);
                    a = new SubsystemAttributes(a.allowAnyHost(), value, a.model(), a.version(), a.cntlidMin(),
                            a.cntlidMax(), a.qidMax(), a.firmware(), a.ieeeOui());
                }
                case "model" -> {
                    s.model(value);
                    a = new SubsystemAttributes(a.allowAnyHost(), a.serial(), value, a.version(), a.cntlidMin(),
                            a.cntlidMax(), a.qidMax(), a.firmware(), a.ieeeOui());
                }
                default -> throw RpcError.invalidParams("attribute \"" + name
                        + "\" cannot be set on a running subsystem (allow_any_host, serial, model)");
            }
        } catch (IllegalArgumentException e) {
            throw RpcError.invalidParams(e.getMessage());
        } catch (IllegalStateException e) {
            throw RpcError.refused(e.getMessage());
        }
        replaceSubsystemConfig(new SubsystemConfig(nqn, a, sc.allowedHosts(), sc.namespaces()));
        LOG.log(Level.INFO, "{0}: {1} set to {2}", nqn, name, value);
    }

    // ---- namespaces ----

    /**
     * Adds a namespace backed by a file/block device ({@code path}) or RAM ({@code ramBytes}); nsid 0 takes the
     * lowest free one. Connected controllers get a Namespace Attribute Changed event (NVMe Base 2.0, 5.2.2).
     */
    public synchronized long addNamespace(String nqn, long nsid, String path, long ramBytes, int blockSize,
                                          java.util.UUID uuid) throws RpcError {
        Subsystem s = subsystem(nqn);
        SubsystemConfig sc = subsystemConfig(nqn);
        if ((path == null) == (ramBytes <= 0)) {
            throw RpcError.invalidParams("a namespace needs exactly one of path or size (RAM)");
        }
        if (nsid == 0) {
            nsid = 1;
            while (s.hasNamespace(nsid)) {
                nsid++;
            }
        } else if (s.hasNamespace(nsid)) {
            throw RpcError.refused(nqn + " already has namespace " + nsid);
        }
        int bs = blockSize > 0 ? blockSize : config.nvmf4j().defaultBlockSize();
        addNamespace(nqn, new NamespaceConfig(nsid, true,
                path != null ? new FileDevice(java.nio.file.Path.of(path)) : new RamDevice(ramBytes), bs, null, uuid,
                1));
        return nsid;
    }

    /** A namespace as a config file describes it (enabled or not). */
    public synchronized void addNamespace(String nqn, NamespaceConfig nc) throws RpcError {
        Subsystem s = subsystem(nqn);
        SubsystemConfig sc = subsystemConfig(nqn);
        if (s.hasNamespace(nc.nsid())) {
            throw RpcError.refused(nqn + " already has namespace " + nc.nsid());
        }
        SubsystemNamespace ns = open(nqn, nc);
        try {
            s.addNamespace(ns);
        } catch (RuntimeException e) {
            closeBackend(ns);
            throw RpcError.refused(e.getMessage());
        }
        if (!nc.enable()) {
            s.enableNamespace(nc.nsid(), false);
        }
        List<NamespaceConfig> list = new ArrayList<>(sc.namespaces());
        list.add(nc);
        list.sort(java.util.Comparator.comparingLong(NamespaceConfig::nsid));
        replaceSubsystemConfig(new SubsystemConfig(nqn, sc.attr(), sc.allowedHosts(), list));
    }

    /**
     * Removes a namespace: new commands to it fail with Invalid Namespace at once (the lookup table is swapped),
     * hosts get the event, then its backend is flushed and closed.
     */
    public synchronized void removeNamespace(String nqn, long nsid) throws RpcError {
        Subsystem s = subsystem(nqn);
        SubsystemConfig sc = subsystemConfig(nqn);
        SubsystemNamespace ns = s.removeNamespace(nsid);
        if (ns == null) {
            throw RpcError.invalidParams(nqn + " has no namespace " + nsid);
        }
        retire(ns);
        replaceSubsystemConfig(new SubsystemConfig(nqn, sc.attr(), sc.allowedHosts(),
                sc.namespaces().stream().filter(n -> n.nsid() != nsid).toList()));
    }

    /**
     * Resizes a file namespace to {@code bytes} (extends or truncates the file), or with {@code bytes} 0 takes the
     * size the file or device has now (nvmet's revalidate_size), and raises Namespace Attribute Changed so hosts
     * re-read NSZE. A RAM namespace cannot change size.
     */
    public synchronized long resizeNamespace(String nqn, long nsid, long bytes) throws RpcError {
        Subsystem s = subsystem(nqn);
        SubsystemConfig sc = subsystemConfig(nqn);
        NamespaceConfig nc = sc.namespace(nsid).orElseThrow(
                () -> RpcError.invalidParams(nqn + " has no namespace " + nsid));
        if (!(nc.backend() instanceof FileDevice(var path))) {
            throw RpcError.refused("namespace " + nsid + " is RAM; its size is fixed");
        }
        if (bytes > 0) {
            if (bytes % nc.blockSize() != 0) {
                throw RpcError.invalidParams("size " + bytes + " is not a multiple of the block size "
                        + nc.blockSize());
            }
            setLength(path, bytes);
        }
        SubsystemNamespace fresh = open(nqn, new NamespaceConfig(nc.nsid(), nc.enable(), nc.backend(), nc.blockSize(),
                nc.nguid(), s.namespaces().stream().filter(n -> n.nsid() == nsid).findFirst()
                .flatMap(SubsystemNamespace::uuid).orElse(nc.uuid()), nc.anaGrpid()));
        retire(s.replaceNamespace(fresh));
        return fresh.backend().sizeInBytes();
    }

    /** nvmet_ns_enable()/nvmet_ns_disable(): hosts see it come or go (Namespace Attribute Changed). */
    public synchronized void enableNamespace(String nqn, long nsid, boolean enable) throws RpcError {
        Subsystem s = subsystem(nqn);
        SubsystemConfig sc = subsystemConfig(nqn);
        try {
            s.enableNamespace(nsid, enable);
        } catch (IllegalArgumentException e) {
            throw RpcError.invalidParams(e.getMessage());
        }
        replaceSubsystemConfig(new SubsystemConfig(nqn, sc.attr(), sc.allowedHosts(), sc.namespaces().stream()
                .map(n -> n.nsid() != nsid ? n : new NamespaceConfig(n.nsid(), enable, n.backend(), n.blockSize(),
                        n.nguid(), n.uuid(), n.anaGrpid())).toList()));
    }

    // ---- hosts (LiveHosts) ----

    public synchronized void addHost(String nqn, String hostNqn) throws RpcError {
        hosts.addHost(nqn, hostNqn);
    }

    /**
     * Allows {@code hostNqn} on {@code nqn}. {@code dhchap} not null sets the host's DH-HMAC-CHAP keys first (for
     * every subsystem that allows it, see {@link #setHostDhchap}); null keeps the keys the host already has, as
     * linking an existing nvmet host to another subsystem does.
     */
    public synchronized void addHost(String nqn, String hostNqn, DhchapConfig dhchap) throws RpcError {
        hosts.addHost(nqn, hostNqn, dhchap);
    }

    /** A host's DH-HMAC-CHAP settings, for every subsystem that allows it; null: it no longer authenticates. */
    public synchronized void setHostDhchap(String hostNqn, DhchapConfig dhchap) {
        hosts.setHostDhchap(hostNqn, dhchap);
    }

    /** Takes a host's access away and disconnects its controllers of this subsystem (it may not stay either). */
    public synchronized void removeHost(String nqn, String hostNqn) throws RpcError {
        hosts.removeHost(nqn, hostNqn);
    }

    static void disconnectDisallowed(Subsystem s) {
        for (Controller c : s.controllers()) {
            if (!s.hostAllowed(c.hostNqn())) {
                c.fatalError("host " + c.hostNqn() + " no longer allowed");
            }
        }
    }

    // ---- ports (LivePorts) ----

    /**
     * A new port of transport {@code trtype} ("rdma" or "tcp"; null for rdma) listening on {@code traddr:trsvcid};
     * portid 0 takes the next free one.
     */
    public synchronized int addPort(int portid, String trtype, String traddr, String trsvcid, String adrfam)
            throws RpcError {
        return ports.addPort(portid, trtype, traddr, trsvcid, adrfam);
    }

    /** A port as a config file describes it, listening, with the subsystems it exports. */
    public synchronized void addPort(PortConfig pc) throws RpcError {
        ports.addPort(pc);
    }

    /** Stops accepting on a port, then disconnects the controllers that came through it (nvmet_port_del_ctrls()). */
    public synchronized void removePort(int portid) throws RpcError {
        ports.removePort(portid);
    }

    /** Exports a subsystem through a port (SPDK nvmf_subsystem_add_listener, nvmet's ports/N/subsystems link). */
    public synchronized void addListener(String nqn, int portid) throws RpcError {
        ports.addListener(nqn, portid);
    }

    /** Withdraws a subsystem from a port; its controllers on that port are disconnected (nvmet_port_del_ctrls()). */
    public synchronized void removeListener(String nqn, int portid) throws RpcError {
        ports.removeListener(nqn, portid);
    }

    /** SPDK's nvmf_subsystem_listener_set_ana_state over nvmet's per-port ANA states (see LivePorts). */
    public synchronized void setAnaState(String nqn, int portid, String state, int anagrpid) throws RpcError {
        ports.setAnaState(nqn, portid, state, anagrpid);
    }

    /** The ANA groups of a port as a reloaded configuration lists them (nvmetcli ports/N/ana_groups). */
    public synchronized void setAnaGroups(int portid, List<AnaGroup> groups) throws RpcError {
        ports.setAnaGroups(portid, groups);
    }

    /** The discovery referrals of a port as a reloaded configuration lists them (enabled ones are served). */
    public synchronized void setReferrals(int portid, List<Referral> referrals) throws RpcError {
        ports.setReferrals(portid, referrals);
    }

    // ---- controllers ----

    public synchronized void disconnect(String nqn, int cntlid) throws RpcError {
        Controller c = subsystem(nqn).controller(cntlid);
        if (c == null) {
            throw RpcError.invalidParams(nqn + " has no controller " + cntlid);
        }
        c.fatalError("disconnected by the operator");
    }

    // ---- helpers ----

    Subsystem subsystem(String nqn) throws RpcError {
        requireText("nqn", nqn);
        Subsystem s = target.subsystem(nqnOf(nqn));
        if (s == null || s.isDiscovery()) {
            throw RpcError.invalidParams("no subsystem " + nqn);
        }
        return s;
    }

    Port port(int portid) throws RpcError {
        return target.ports().stream().filter(p -> p.portId() == portid).findFirst()
                .orElseThrow(() -> RpcError.invalidParams("no port " + portid));
    }

    SubsystemConfig subsystemConfig(String nqn) throws RpcError {
        return config.subsystem(nqn).orElseThrow(() -> RpcError.invalidParams("no subsystem " + nqn));
    }

    void replaceSubsystemConfig(SubsystemConfig sc) {
        config = withSubsystems(config.subsystems().stream().map(c -> c.nqn().equals(sc.nqn()) ? sc : c).toList());
    }

    private TargetConfig withSubsystems(List<SubsystemConfig> subs) {
        return new TargetConfig(config.hosts(), config.ports(), subs, config.nvmf4j());
    }

    TargetConfig withHosts(List<HostConfig> hosts) {
        return new TargetConfig(hosts, config.ports(), config.subsystems(), config.nvmf4j());
    }

    TargetConfig withPorts(List<PortConfig> ports) {
        return new TargetConfig(config.hosts(), ports, config.subsystems(), config.nvmf4j());
    }

    static PortConfig withPortSubsystems(PortConfig p, List<String> names) {
        return new PortConfig(p.portid(), p.addr(), p.param(), names, p.referrals(), p.anaGroups());
    }

    private void retire(SubsystemNamespace ns) {
        backends.retire(ns);
    }

    /** Closes the backends still waiting to retire (at daemon stop, after the transport has stopped). */
    @Override
    public void close() {
        backends.close();
    }

    Listeners listeners() {
        return listeners;
    }

    /** Replaces the running configuration (the operations moved to LiveHosts and LivePorts, under this lock). */
    void replaceConfig(TargetConfig newConfig) {
        config = newConfig;
    }

    /** Applies {@code change} to the config alone (settings that need no live action). */
    synchronized void updateConfig(UnaryOperator<TargetConfig> change) {
        config = change.apply(config);
    }
}
