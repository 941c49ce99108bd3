package io.nvmf4j.cli.serve;

import io.nvmf4j.config.AnaGroup;
import io.nvmf4j.config.PortAddress;
import io.nvmf4j.config.PortConfig;
import io.nvmf4j.config.PortParams;
import io.nvmf4j.config.Referral;
import io.nvmf4j.protocol.log.AnaState;
import io.nvmf4j.target.Controller;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.TargetConfigurator;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

import static io.nvmf4j.cli.serve.RpcParams.requireText;

/**
 * The ports of a {@link LiveTarget}: ports and their listeners, the subsystems each exports (nvmetcli's
 * {@code ports/N/subsystems}), its ANA groups and discovery referrals. Called only by {@link LiveTarget}, under its
 * lock, and keeps its configuration equal to what runs.
 */
final class LivePorts {

    // The operations' log records keep the name they had when they were part of LiveTarget.
    private static final System.Logger LOG = System.getLogger(LiveTarget.class.getName());

    private final LiveTarget live;

    LivePorts(LiveTarget live) {
        this.live = live;
    }

    /** A new port of {@code trtype} (null: rdma) on {@code traddr:trsvcid}; portid 0 takes the next free one. */
    int addPort(int portid, String trtype, String traddr, String trsvcid, String adrfam) throws RpcError {
        String transport = trtype == null ? "rdma" : trtype.toLowerCase(java.util.Locale.ROOT);
        if (!transport.equals("rdma") && !transport.equals("tcp")) {
            throw RpcError.invalidParams("trtype: \"" + trtype + "\" is not served (rdma, tcp)");
        }
        requireText("traddr", traddr);
        requireText("trsvcid", trsvcid);
        if (portid == 0) {
            portid = live.config().ports().stream().mapToInt(PortConfig::portid).max().orElse(0) + 1;
        }
        int id = portid;
        if (live.config().ports().stream().anyMatch(p -> p.portid() == id)) {
            throw RpcError.refused("port " + portid + " already exists");
        }
        String family = adrfam != null ? adrfam : traddr.contains(":") ? "ipv6" : "ipv4";
        addPort(new PortConfig(portid, new PortAddress(transport, family, traddr, trsvcid,
                PortAddress.TREQ_NOT_SPECIFIED), PortParams.defaults(), List.of(), List.of(), List.of()));
        return portid;
    }

    /** A port as a config file describes it, listening, with the subsystems it exports. */
    void addPort(PortConfig pc) throws RpcError {
        int portid = pc.portid();
        String traddr = pc.addr().traddr();
        String trsvcid = pc.addr().trsvcid();
        if (live.config().ports().stream().anyMatch(p -> p.portid() == portid)) {
            throw RpcError.refused("port " + portid + " already exists");
        }
        List<Subsystem> exported = new ArrayList<>();
        for (String nqn : pc.subsystems()) {
            exported.add(live.subsystem(nqn));
        }
        Port port;
        try {
            port = TargetConfigurator.port(pc, live.config().nvmf4j());
            live.listeners().listen(port);
        } catch (IOException | RuntimeException e) {
            throw RpcError.refused("port " + portid + " on " + traddr + ":" + trsvcid + ": " + e.getMessage());
        }
        live.target().addPort(port);
        exported.forEach(port::addSubsystem);
        List<PortConfig> ports = new ArrayList<>(live.config().ports());
        ports.add(pc);
        live.replaceConfig(live.withPorts(ports));
        LOG.log(Level.INFO, "added port {0,number,#} on {1}:{2}", portid, traddr, trsvcid);
    }

    /** Stops accepting on a port, then disconnects the controllers that came through it (nvmet_port_del_ctrls()). */
    void removePort(int portid) throws RpcError {
        Port port = live.port(portid);
        live.listeners().stopListening(port);
        live.target().removePort(port);
        live.replaceConfig(live.withPorts(live.config().ports().stream().filter(p -> p.portid() != portid).toList()));
        LOG.log(Level.INFO, "removed port {0,number,#}", portid);
    }

    /** Exports a subsystem through a port (SPDK nvmf_subsystem_add_listener, nvmet's ports/N/subsystems link). */
    void addListener(String nqn, int portid) throws RpcError {
        Subsystem s = live.subsystem(nqn);
        Port port = live.port(portid);
        port.addSubsystem(s);
        LOG.log(Level.INFO, "{0} exported through port {1,number,#}", nqn, portid);
        List<PortConfig> ports = new ArrayList<>();
        for (PortConfig p : live.config().ports()) {
            if (p.portid() == portid && !p.subsystems().contains(nqn)) {
                List<String> names = new ArrayList<>(p.subsystems());
                names.add(nqn);
                p = LiveTarget.withPortSubsystems(p, names);
            }
            ports.add(p);
        }
        live.replaceConfig(live.withPorts(ports));
    }

    /** Withdraws a subsystem from a port; its controllers on that port are disconnected (nvmet_port_del_ctrls()). */
    void removeListener(String nqn, int portid) throws RpcError {
        Subsystem s = live.subsystem(nqn);
        Port port = live.port(portid);
        port.removeSubsystem(s);
        LOG.log(Level.INFO, "{0} withdrawn from port {1,number,#}", nqn, portid);
        for (Controller c : s.controllers()) {
            if (c.port() == port) {
                c.fatalError("subsystem withdrawn from port " + portid);
            }
        }
        List<PortConfig> ports = new ArrayList<>();
        for (PortConfig p : live.config().ports()) {
            ports.add(p.portid() == portid
                    ? LiveTarget.withPortSubsystems(p, p.subsystems().stream().filter(n -> !n.equals(nqn)).toList())
                    : p);
        }
        live.replaceConfig(live.withPorts(ports));
    }

    /**
     * SPDK's nvmf_subsystem_listener_set_ana_state over nvmet's model, where ANA states belong to the port: sets
     * group {@code anagrpid} (or, with 0, every group the port defines and every group of the subsystem's
     * namespaces) to {@code state} ("optimized", "non_optimized" or "non-optimized", "inaccessible",
     * "persistent_loss", "change") on the port the subsystem listens on. Hosts on that port get an ANA change
     * notice and stay connected; other subsystems exported through the port share the group's state.
     */
    void setAnaState(String nqn, int portid, String state, int anagrpid) throws RpcError {
        Subsystem s = live.subsystem(nqn);
        Port port = live.port(portid);
        if (!port.subsystems().contains(s)) {
            throw RpcError.invalidParams(nqn + " does not listen on port " + portid);
        }
        AnaState ana = AnaState.fromLabel(state.replace('_', '-'))
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
        for (PortConfig p : live.config().ports()) {
            if (p.portid() == portid) {
                List<AnaGroup> ag = new ArrayList<>();
                port.anaGroups().forEach((g, st) -> ag.add(new AnaGroup(g, st.label())));
                p = new PortConfig(p.portid(), p.addr(), p.param(), p.subsystems(), p.referrals(), ag);
            }
            ports.add(p);
        }
        live.replaceConfig(live.withPorts(ports));
    }

    /**
     * The ANA groups of a port as a reloaded configuration lists them (nvmetcli ports/N/ana_groups): listed groups
     * take their state (optimized when none is given), groups no longer listed go (group 1 returns to optimized).
     */
    void setAnaGroups(int portid, List<AnaGroup> groups) throws RpcError {
        Port port = live.port(portid);
        java.util.Set<Integer> listed = new java.util.HashSet<>();
        for (AnaGroup g : groups) {
            listed.add(g.grpid());
            port.anaState(g.grpid(), AnaState.fromLabel(
                    g.state() == null ? "optimized" : g.state()).orElseThrow(
                            () -> RpcError.invalidParams("ANA group " + g.grpid() + ": state " + g.state())));
        }
        for (int g : port.anaGroups().keySet()) {
            if (!listed.contains(g)) {
                if (g == Port.DEFAULT_ANA_GROUP) {
                    port.anaState(g, AnaState.OPTIMIZED);
                } else {
                    port.removeAnaGroup(g);
                }
            }
        }
        live.replaceConfig(live.withPorts(live.config().ports().stream().map(p -> p.portid() != portid ? p
                : new PortConfig(p.portid(), p.addr(), p.param(), p.subsystems(), p.referrals(), groups)).toList()));
    }

    /** The discovery referrals of a port as a reloaded configuration lists them (enabled ones are served). */
    void setReferrals(int portid, List<Referral> referrals) throws RpcError {
        Port port = live.port(portid);
        List<Port.Referral> wanted = new ArrayList<>();
        try {
            for (Referral r : referrals) {
                if (r.enable()) {
                    wanted.add(TargetConfigurator.referral(portid, r));
                }
            }
        } catch (IllegalArgumentException e) {
            throw RpcError.invalidParams(e.getMessage());
        }
        port.referrals().forEach(port::removeReferral);
        wanted.forEach(port::addReferral);
        live.replaceConfig(live.withPorts(live.config().ports().stream().map(p -> p.portid() != portid ? p
                : new PortConfig(p.portid(), p.addr(), p.param(), p.subsystems(), referrals, p.anaGroups())).toList()));
    }
}
