package io.nvmf4j.cli.serve;

import io.nvmf4j.config.DhchapConfig;
import io.nvmf4j.config.HostConfig;
import io.nvmf4j.config.NamespaceBackend.FileBackend;
import io.nvmf4j.config.NamespaceBackend.RamBackend;
import io.nvmf4j.config.NamespaceConfig;
import io.nvmf4j.config.Nvmf4jSettings;
import io.nvmf4j.config.PortAddress;
import io.nvmf4j.config.PortConfig;
import io.nvmf4j.config.PortParams;
import io.nvmf4j.config.SubsystemAttributes;
import io.nvmf4j.config.SubsystemConfig;
import io.nvmf4j.config.TargetConfig;
import io.nvmf4j.target.Controller;
import io.nvmf4j.target.Namespace;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubsystemNqn;
import io.nvmf4j.target.TargetConfigurator;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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
        for (Namespace ns : s.namespaces()) {
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
                path != null ? new FileBackend(java.nio.file.Path.of(path)) : new RamBackend(ramBytes), bs, null, uuid,
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
        Namespace ns = open(nqn, nc);
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
        Namespace ns = s.removeNamespace(nsid);
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
        if (!(nc.backend() instanceof FileBackend(var path))) {
            throw RpcError.refused("namespace " + nsid + " is RAM; its size is fixed");
        }
        if (bytes > 0) {
            if (bytes % nc.blockSize() != 0) {
                throw RpcError.invalidParams("size " + bytes + " is not a multiple of the block size "
                        + nc.blockSize());
            }
            setLength(path, bytes);
        }
        Namespace fresh = open(nqn, new NamespaceConfig(nc.nsid(), nc.enable(), nc.backend(), nc.blockSize(),
                nc.nguid(), s.namespaces().stream().filter(n -> n.nsid() == nsid).findFirst()
                .flatMap(Namespace::uuid).orElse(nc.uuid()), nc.anaGrpid()));
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

    // ---- hosts ----

    public synchronized void addHost(String nqn, String hostNqn) throws RpcError {
        addHost(nqn, hostNqn, null);
    }

    /**
     * Allows {@code hostNqn} on {@code nqn}. {@code dhchap} not null sets the host's DH-HMAC-CHAP keys first (for
     * every subsystem that allows it, see {@link #setHostDhchap}); null keeps the keys the host already has, as
     * linking an existing nvmet host to another subsystem does.
     */
    public synchronized void addHost(String nqn, String hostNqn, DhchapConfig dhchap) throws RpcError {
        Subsystem s = subsystem(nqn);
        SubsystemConfig sc = subsystemConfig(nqn);
        requireText("host", hostNqn);
        if (s.allowsAnyHost()) {
            // nvmet_allowed_hosts_allow(): "Can't add hosts when allow_any_host is set"
            throw RpcError.refused(nqn + " allows any host; set allow_any_host to 0 before listing hosts");
        }
        if (dhchap != null) {
            setHostDhchap(hostNqn, dhchap);
        }
        s.allowHost(hostNqn, TargetConfigurator.keysOf(config.hosts(), hostNqn));
        if (!sc.allowedHosts().contains(hostNqn)) {
            List<String> hosts = new ArrayList<>(sc.allowedHosts());
            hosts.add(hostNqn);
            replaceSubsystemConfig(new SubsystemConfig(nqn, sc.attr(), hosts, sc.namespaces()));
        }
        LOG.log(Level.INFO, "{0}: allowed host {1}", nqn, hostNqn);
        if (config.hosts().stream().noneMatch(h -> h.nqn().equals(hostNqn))) {
            List<HostConfig> hosts = new ArrayList<>(config.hosts());
            hosts.add(new HostConfig(hostNqn));
            config = new TargetConfig(hosts, config.ports(), config.subsystems(), config.nvmf4j());
        }
    }

    /**
     * A host's DH-HMAC-CHAP settings (nvmet's {@code hosts/<nqn>/dhchap_*}): the keys belong to the host, so every
     * subsystem that allows it enforces the new ones from its next Connect or re-authentication; controllers already
     * connected keep what they authenticated with, as in nvmet. {@code dhchap} null: the host no longer
     * authenticates. Never logs a key.
     */
    public synchronized void setHostDhchap(String hostNqn, DhchapConfig dhchap) {
        List<HostConfig> hosts = new ArrayList<>();
        boolean found = false;
        for (HostConfig h : config.hosts()) {
            if (h.nqn().equals(hostNqn)) {
                hosts.add(new HostConfig(hostNqn, dhchap));
                found = true;
            } else {
                hosts.add(h);
            }
        }
        if (!found) {
            hosts.add(new HostConfig(hostNqn, dhchap));
        }
        config = new TargetConfig(hosts, config.ports(), config.subsystems(), config.nvmf4j());
        var keys = TargetConfigurator.keysOf(hosts, hostNqn);
        for (SubsystemConfig c : config.subsystems()) {
            if (c.allowedHosts().contains(hostNqn)) {
                Subsystem s = target.subsystem(SubsystemNqn.of(c.nqn()));
                if (s != null) {
                    s.allowHost(hostNqn, keys);
                }
            }
        }
        LOG.log(Level.INFO, "host {0}: {1}", hostNqn, keys == null ? "no DH-HMAC-CHAP key"
                : "DH-HMAC-CHAP keys set (" + (keys.bidirectional() ? "bidirectional" : "unidirectional") + ")");
    }

    /** Takes a host's access away and disconnects its controllers of this subsystem (it may not stay either). */
    public synchronized void removeHost(String nqn, String hostNqn) throws RpcError {
        Subsystem s = subsystem(nqn);
        SubsystemConfig sc = subsystemConfig(nqn);
        if (!sc.allowedHosts().contains(hostNqn)) {
            throw RpcError.invalidParams(nqn + " has no allowed host " + hostNqn);
        }
        s.disallowHost(hostNqn);
        LOG.log(Level.INFO, "{0}: host {1} no longer allowed", nqn, hostNqn);
        disconnectDisallowed(s);
        replaceSubsystemConfig(new SubsystemConfig(nqn, sc.attr(),
                sc.allowedHosts().stream().filter(h -> !h.equals(hostNqn)).toList(), sc.namespaces()));
        Set<String> stillUsed = new LinkedHashSet<>();
        config.subsystems().forEach(c -> stillUsed.addAll(c.allowedHosts()));
        config = new TargetConfig(config.hosts().stream().filter(h -> stillUsed.contains(h.nqn())).toList(),
                config.ports(), config.subsystems(), config.nvmf4j());
    }

    private static void disconnectDisallowed(Subsystem s) {
        for (Controller c : s.controllers()) {
            if (!s.hostAllowed(c.hostNqn())) {
                c.fatalError("host " + c.hostNqn() + " no longer allowed");
            }
        }
    }

    // ---- ports ----

    /** A new port listening on {@code traddr:trsvcid}; portid 0 takes the next free one. */
    public synchronized int addPort(int portid, String traddr, String trsvcid, String adrfam) throws RpcError {
        requireText("traddr", traddr);
        requireText("trsvcid", trsvcid);
        if (portid == 0) {
            portid = config.ports().stream().mapToInt(PortConfig::portid).max().orElse(0) + 1;
        }
        int id = portid;
        if (config.ports().stream().anyMatch(p -> p.portid() == id)) {
            throw RpcError.refused("port " + portid + " already exists");
        }
        String family = adrfam != null ? adrfam : traddr.contains(":") ? "ipv6" : "ipv4";
        addPort(new PortConfig(portid, new PortAddress("rdma", family, traddr, trsvcid,
                PortAddress.TREQ_NOT_SPECIFIED), PortParams.defaults(), List.of(), List.of(), List.of()));
        return portid;
    }

    /** A port as a config file describes it, listening, with the subsystems it exports. */
    public synchronized void addPort(PortConfig pc) throws RpcError {
        int portid = pc.portid();
        String traddr = pc.addr().traddr();
        String trsvcid = pc.addr().trsvcid();
        if (config.ports().stream().anyMatch(p -> p.portid() == portid)) {
            throw RpcError.refused("port " + portid + " already exists");
        }
        List<Subsystem> exported = new ArrayList<>();
        for (String nqn : pc.subsystems()) {
            exported.add(subsystem(nqn));
        }
        Port port;
        try {
            port = TargetConfigurator.port(pc, config.nvmf4j());
            listeners.listen(port);
        } catch (IOException | RuntimeException e) {
            throw RpcError.refused("port " + portid + " on " + traddr + ":" + trsvcid + ": " + e.getMessage());
        }
        target.addPort(port);
        exported.forEach(port::addSubsystem);
        List<PortConfig> ports = new ArrayList<>(config.ports());
        ports.add(pc);
        config = withPorts(ports);
        LOG.log(Level.INFO, "added port {0,number,#} on {1}:{2}", portid, traddr, trsvcid);
    }

    /** Stops accepting on a port, then disconnects the controllers that came through it (nvmet_port_del_ctrls()). */
    public synchronized void removePort(int portid) throws RpcError {
        Port port = port(portid);
        listeners.stopListening(port);
        target.removePort(port);
        config = withPorts(config.ports().stream().filter(p -> p.portid() != portid).toList());
        LOG.log(Level.INFO, "removed port {0,number,#}", portid);
    }

    /** Exports a subsystem through a port (SPDK nvmf_subsystem_add_listener, nvmet's ports/N/subsystems link). */
    public synchronized void addListener(String nqn, int portid) throws RpcError {
        Subsystem s = subsystem(nqn);
        Port port = port(portid);
        port.addSubsystem(s);
        LOG.log(Level.INFO, "{0} exported through port {1,number,#}", nqn, portid);
        List<PortConfig> ports = new ArrayList<>();
        for (PortConfig p : config.ports()) {
            if (p.portid() == portid && !p.subsystems().contains(nqn)) {
                List<String> names = new ArrayList<>(p.subsystems());
                names.add(nqn);
                p = withPortSubsystems(p, names);
            }
            ports.add(p);
        }
        config = withPorts(ports);
    }

    /** Withdraws a subsystem from a port; its controllers on that port are disconnected (nvmet_port_del_ctrls()). */
    public synchronized void removeListener(String nqn, int portid) throws RpcError {
        Subsystem s = subsystem(nqn);
        Port port = port(portid);
        port.removeSubsystem(s);
        LOG.log(Level.INFO, "{0} withdrawn from port {1,number,#}", nqn, portid);
        for (Controller c : s.controllers()) {
            if (c.port() == port) {
                c.fatalError("subsystem withdrawn from port " + portid);
            }
        }
        List<PortConfig> ports = new ArrayList<>();
        for (PortConfig p : config.ports()) {
            ports.add(p.portid() == portid
                    ? withPortSubsystems(p, p.subsystems().stream().filter(n -> !n.equals(nqn)).toList()) : p);
        }
        config = withPorts(ports);
    }

    /**
     * SPDK's nvmf_subsystem_listener_set_ana_state over nvmet's model, where ANA states belong to the port: sets
     * group {@code anagrpid} (or, with 0, every group the port defines and every group of the subsystem's
     * namespaces) to {@code state} ("optimized", "non_optimized" or "non-optimized", "inaccessible",
     * "persistent_loss", "change") on the port the subsystem listens on. Hosts on that port get an ANA change
     * notice and stay connected; other subsystems exported through the port share the group's state.
     */
    public synchronized void setAnaState(String nqn, int portid, String state, int anagrpid) throws RpcError {
        Subsystem s = subsystem(nqn);
        Port port = port(portid);
        if (!port.subsystems().contains(s)) {
            throw RpcError.invalidParams(nqn + " does not listen on port " + portid);
        }
        io.nvmf4j.protocol.log.AnaState ana = io.nvmf4j.protocol.log.AnaState.fromLabel(state.replace('_', '-'))
                .orElseThrow(() -> RpcError.invalidParams("ana_state \"" + state + "\" is not one of optimized, "
                        + "non_optimized, inaccessible, persistent_loss, change"));
        if (anagrpid < 0 || anagrpid > Port.MAX_ANA_GROUPS) {
            throw RpcError.invalidParams("anagrpid " + anagrpid + " outside 1.." + Port.MAX_ANA_GROUPS);
        }
        java.util.SortedSet<Integer> groups = new java.util.TreeSet<>();
        if (anagrpid != 0) {
            groups.add(anagrpid);
        } else {
            groups.addAll(port.anaGroups().keySet());
            s.namespaces().forEach(ns -> groups.add(ns.anaGroupId()));
        }
        for (int g : groups) {
            port.anaState(g, ana);
        }
        LOG.log(Level.INFO, "port {0,number,#}: ANA group(s) {1} {2}", portid, groups, ana);
        List<PortConfig> ports = new ArrayList<>();
        for (PortConfig p : config.ports()) {
            if (p.portid() == portid) {
                List<io.nvmf4j.config.AnaGroup> ag = new ArrayList<>();
                port.anaGroups().forEach((g, st) -> ag.add(new io.nvmf4j.config.AnaGroup(g, st.label())));
                p = new PortConfig(p.portid(), p.addr(), p.param(), p.subsystems(), p.referrals(), ag);
            }
            ports.add(p);
        }
        config = withPorts(ports);
    }

    /**
     * The ANA groups of a port as a reloaded configuration lists them (nvmetcli ports/N/ana_groups): listed groups
     * take their state (optimized when none is given), groups no longer listed go (group 1 returns to optimized).
     */
    public synchronized void setAnaGroups(int portid, List<io.nvmf4j.config.AnaGroup> groups) throws RpcError {
        Port port = port(portid);
        java.util.Set<Integer> listed = new java.util.HashSet<>();
        for (io.nvmf4j.config.AnaGroup g : groups) {
            listed.add(g.grpid());
            port.anaState(g.grpid(), io.nvmf4j.protocol.log.AnaState.fromLabel(
                    g.state() == null ? "optimized" : g.state()).orElseThrow(
                            () -> RpcError.invalidParams("ANA group " + g.grpid() + ": state " + g.state())));
        }
        for (int g : port.anaGroups().keySet()) {
            if (!listed.contains(g)) {
                if (g == Port.DEFAULT_ANA_GROUP) {
                    port.anaState(g, io.nvmf4j.protocol.log.AnaState.OPTIMIZED);
                } else {
                    port.removeAnaGroup(g);
                }
            }
        }
        config = withPorts(config.ports().stream().map(p -> p.portid() != portid ? p
                : new PortConfig(p.portid(), p.addr(), p.param(), p.subsystems(), p.referrals(), groups)).toList());
    }

    /** The discovery referrals of a port as a reloaded configuration lists them (enabled ones are served). */
    public synchronized void setReferrals(int portid, List<io.nvmf4j.config.Referral> referrals) throws RpcError {
        Port port = port(portid);
        List<Port.Referral> wanted = new ArrayList<>();
        try {
            for (io.nvmf4j.config.Referral r : referrals) {
                if (r.enable()) {
                    wanted.add(TargetConfigurator.referral(portid, r));
                }
            }
        } catch (IllegalArgumentException e) {
            throw RpcError.invalidParams(e.getMessage());
        }
        port.referrals().forEach(port::removeReferral);
        wanted.forEach(port::addReferral);
        config = withPorts(config.ports().stream().map(p -> p.portid() != portid ? p
                : new PortConfig(p.portid(), p.addr(), p.param(), p.subsystems(), referrals, p.anaGroups())).toList());
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

    private SubsystemConfig subsystemConfig(String nqn) throws RpcError {
        return config.subsystem(nqn).orElseThrow(() -> RpcError.invalidParams("no subsystem " + nqn));
    }

    private void replaceSubsystemConfig(SubsystemConfig sc) {
        config = withSubsystems(config.subsystems().stream().map(c -> c.nqn().equals(sc.nqn()) ? sc : c).toList());
    }

    private TargetConfig withSubsystems(List<SubsystemConfig> subs) {
        return new TargetConfig(config.hosts(), config.ports(), subs, config.nvmf4j());
    }

    private TargetConfig withPorts(List<PortConfig> ports) {
        return new TargetConfig(config.hosts(), ports, config.subsystems(), config.nvmf4j());
    }

    private static PortConfig withPortSubsystems(PortConfig p, List<String> names) {
        return new PortConfig(p.portid(), p.addr(), p.param(), names, p.referrals(), p.anaGroups());
    }

    private void retire(Namespace ns) {
        backends.retire(ns);
    }

    /** Closes the backends still waiting to retire (at daemon stop, after the transport has stopped). */
    @Override
    public void close() {
        backends.close();
    }

    /** Applies {@code change} to the config alone (settings that need no live action). */
    synchronized void updateConfig(UnaryOperator<TargetConfig> change) {
        config = change.apply(config);
    }
}
