package io.nvmf4j.cli.serve;

import io.nvmf4j.config.DhchapConfig;
import io.nvmf4j.config.HostConfig;
import io.nvmf4j.config.SubsystemConfig;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubsystemNqn;
import io.nvmf4j.target.TargetConfigurator;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static io.nvmf4j.cli.serve.RpcParams.requireText;

/**
 * The hosts of a {@link LiveTarget}: which hosts a subsystem allows (nvmetcli's {@code subsystems/<nqn>/allowed_hosts})
 * and each host's DH-HMAC-CHAP keys ({@code hosts/<nqn>/dhchap_*}). Called only by {@link LiveTarget}, under its lock,
 * and keeps its configuration equal to what runs.
 */
final class LiveHosts {

    // The operations' log records keep the name they had when they were part of LiveTarget.
    private static final System.Logger LOG = System.getLogger(LiveTarget.class.getName());

    private final LiveTarget live;

    LiveHosts(LiveTarget live) {
        this.live = live;
    }

    void addHost(String nqn, String hostNqn) throws RpcError {
        addHost(nqn, hostNqn, null);
    }

    /**
     * Allows {@code hostNqn} on {@code nqn}. {@code dhchap} not null sets the host's DH-HMAC-CHAP keys first (for
     * every subsystem that allows it, see {@link #setHostDhchap}); null keeps the keys the host already has, as
     * linking an existing nvmet host to another subsystem does.
     */
    void addHost(String nqn, String hostNqn, DhchapConfig dhchap) throws RpcError {
        Subsystem s = live.subsystem(nqn);
        SubsystemConfig sc = live.subsystemConfig(nqn);
        requireText("host", hostNqn);
        if (s.allowsAnyHost()) {
            // nvmet_allowed_hosts_allow(): "Can't add hosts when allow_any_host is set"
            throw RpcError.refused(nqn + " allows any host; set allow_any_host to 0 before listing hosts");
        }
        if (dhchap != null) {
            setHostDhchap(hostNqn, dhchap);
        }
        s.allowHost(hostNqn, TargetConfigurator.keysOf(live.config().hosts(), hostNqn));
        if (!sc.allowedHosts().contains(hostNqn)) {
            List<String> hosts = new ArrayList<>(sc.allowedHosts());
            hosts.add(hostNqn);
            live.replaceSubsystemConfig(new SubsystemConfig(nqn, sc.attr(), hosts, sc.namespaces()));
        }
        LOG.log(Level.INFO, "{0}: allowed host {1}", nqn, hostNqn);
        if (live.config().hosts().stream().noneMatch(h -> h.nqn().equals(hostNqn))) {
            List<HostConfig> hosts = new ArrayList<>(live.config().hosts());
            hosts.add(new HostConfig(hostNqn));
            live.replaceConfig(live.withHosts(hosts));
        }
    }

    /**
     * A host's DH-HMAC-CHAP settings (nvmet's {@code hosts/<nqn>/dhchap_*}): the keys belong to the host, so every
     * subsystem that allows it enforces the new ones from its next Connect or re-authentication; controllers already
     * connected keep what they authenticated with, as in nvmet. {@code dhchap} null: the host no longer
     * authenticates. Never logs a key.
     */
    void setHostDhchap(String hostNqn, DhchapConfig dhchap) {
        List<HostConfig> hosts = new ArrayList<>();
        boolean found = false;
        for (HostConfig h : live.config().hosts()) {
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
        live.replaceConfig(live.withHosts(hosts));
        var keys = TargetConfigurator.keysOf(hosts, hostNqn);
        for (SubsystemConfig c : live.config().subsystems()) {
            if (c.allowedHosts().contains(hostNqn)) {
                Subsystem s = live.target().subsystem(SubsystemNqn.of(c.nqn()));
                if (s != null) {
                    s.allowHost(hostNqn, keys);
                }
            }
        }
        LOG.log(Level.INFO, "host {0}: {1}", hostNqn, keys == null ? "no DH-HMAC-CHAP key"
                : "DH-HMAC-CHAP keys set (" + (keys.bidirectional() ? "bidirectional" : "unidirectional") + ")");
    }

    /** Takes a host's access away and disconnects its controllers of this subsystem (it may not stay either). */
    void removeHost(String nqn, String hostNqn) throws RpcError {
        Subsystem s = live.subsystem(nqn);
        SubsystemConfig sc = live.subsystemConfig(nqn);
        if (!sc.allowedHosts().contains(hostNqn)) {
            throw RpcError.invalidParams(nqn + " has no allowed host " + hostNqn);
        }
        s.disallowHost(hostNqn);
        LOG.log(Level.INFO, "{0}: host {1} no longer allowed", nqn, hostNqn);
        LiveTarget.disconnectDisallowed(s);
        live.replaceSubsystemConfig(new SubsystemConfig(nqn, sc.attr(),
                sc.allowedHosts().stream().filter(h -> !h.equals(hostNqn)).toList(), sc.namespaces()));
        Set<String> stillUsed = new LinkedHashSet<>();
        live.config().subsystems().forEach(c -> stillUsed.addAll(c.allowedHosts()));
        live.replaceConfig(live.withHosts(
                live.config().hosts().stream().filter(h -> stillUsed.contains(h.nqn())).toList()));
    }
}
