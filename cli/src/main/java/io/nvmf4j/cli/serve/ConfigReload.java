package io.nvmf4j.cli.serve;

import io.nvmf4j.config.HostConfig;
import io.nvmf4j.config.NamespaceConfig;
import io.nvmf4j.config.PortConfig;
import io.nvmf4j.config.SubsystemAttributes;
import io.nvmf4j.config.SubsystemConfig;
import io.nvmf4j.config.TargetConfig;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * SIGHUP: what nvmetcli restore does against a running configfs, by difference: the new file is compared with what
 * runs and only what differs changes, through the same {@link LiveTarget} operations as the management socket, so
 * hosts of unchanged subsystems and namespaces are not touched. The file was loaded (and its device paths checked)
 * before anything here runs: a bad file changes nothing.
 *
 * <p>What cannot change while running (the nvmf4j settings section, controller ID ranges, versions, queue counts)
 * is reported as needing a restart, not applied.
 */
public final class ConfigReload {

    private static final System.Logger LOG = System.getLogger(ConfigReload.class.getName());

    /** What a reload did: each change as a line for the log, and what failed or needs a restart. */
    public record Result(List<String> changes, List<String> problems) {
    }

    private final LiveTarget live;
    private final List<String> changes = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();

    private ConfigReload(LiveTarget live) {
        this.live = live;
    }

    /** Applies {@code wanted} to the running target; every change and problem is logged too. */
    public static Result apply(LiveTarget live, TargetConfig wanted) {
        ConfigReload r = new ConfigReload(live);
        synchronized (live) {
            r.run(live.config(), wanted);
        }
        if (r.changes.isEmpty() && r.problems.isEmpty()) {
            LOG.log(Level.INFO, "reload: no change");
        }
        return new Result(List.copyOf(r.changes), List.copyOf(r.problems));
    }

    private interface Op {
        void run() throws RpcError;
    }

    private void step(String what, Op op) {
        try {
            op.run();
            changes.add(what);
            LOG.log(Level.INFO, "reload: {0}", what);
        } catch (RpcError e) {
            problems.add(what + ": " + e.getMessage());
            LOG.log(Level.WARNING, "reload: {0} failed: {1}", what, e.getMessage());
        }
    }

    private void restartNeeded(String what) {
        problems.add(what + " changes only at restart");
        LOG.log(Level.WARNING, "reload: {0} changes only at restart; not applied", what);
    }

    private void run(TargetConfig old, TargetConfig wanted) {
        if (wanted.nvmf4j() != null && !wanted.nvmf4j().equals(old.nvmf4j())) {
            restartNeeded("the \"nvmf4j\" settings section");
        }
        // host keys first: subsystems created or hosts allowed below take them from the host (nvmet's hosts/<nqn>)
        Map<String, HostConfig> oldHosts = byKey(old.hosts(), HostConfig::nqn);
        for (HostConfig h : wanted.hosts()) {
            HostConfig o = oldHosts.get(h.nqn());
            if (!java.util.Objects.equals(o == null ? null : o.dhchap(), h.dhchap())
                    && (o != null || h.dhchap() != null)) {
                step("host " + h.nqn() + ": DH-HMAC-CHAP settings", () -> live.setHostDhchap(h.nqn(), h.dhchap()));
            }
        }
        Map<Integer, PortConfig> oldPorts = byKey(old.ports(), PortConfig::portid);
        Map<Integer, PortConfig> newPorts = byKey(wanted.ports(), PortConfig::portid);
        Map<String, SubsystemConfig> oldSubs = byKey(old.subsystems(), SubsystemConfig::nqn);
        Map<String, SubsystemConfig> newSubs = byKey(wanted.subsystems(), SubsystemConfig::nqn);

        // ports that go or move first: a moved port may take the address another one frees
        for (PortConfig p : oldPorts.values()) {
            PortConfig n = newPorts.get(p.portid());
            if (n == null || !samePort(p, n)) {
                step("remove port " + p.portid(), () -> live.removePort(p.portid()));
            }
        }
        for (SubsystemConfig s : oldSubs.values()) {
            if (!newSubs.containsKey(s.nqn())) {
                step("delete subsystem " + s.nqn(), () -> live.deleteSubsystem(s.nqn()));
            }
        }
        for (SubsystemConfig s : newSubs.values()) {
            SubsystemConfig o = oldSubs.get(s.nqn());
            if (o == null) {
                step("create subsystem " + s.nqn() + " with " + s.namespaces().size() + " namespace(s)",
                        () -> live.createSubsystem(s));
            } else {
                subsystemChanges(o, s);
            }
        }
        for (PortConfig p : newPorts.values()) {
            PortConfig o = oldPorts.get(p.portid());
            if (o == null || !samePort(o, p)) {
                step("add port " + p.portid() + " on " + p.addr().traddr() + ":" + p.addr().trsvcid(),
                        () -> live.addPort(p));
            } else {
                for (String nqn : o.subsystems()) {
                    if (!p.subsystems().contains(nqn) && newSubs.containsKey(nqn)) {
                        step("withdraw " + nqn + " from port " + p.portid(), () -> live.removeListener(nqn, p.portid()));
                    }
                }
                for (String nqn : p.subsystems()) {
                    if (!o.subsystems().contains(nqn)) {
                        step("export " + nqn + " through port " + p.portid(), () -> live.addListener(nqn, p.portid()));
                    }
                }
                // ANA states and referrals change in place: the hosts on the port stay connected
                if (!o.anaGroups().equals(p.anaGroups())) {
                    step("ANA groups of port " + p.portid() + ": " + p.anaGroups(),
                            () -> live.setAnaGroups(p.portid(), p.anaGroups()));
                }
                if (!o.referrals().equals(p.referrals())) {
                    step("referrals of port " + p.portid(), () -> live.setReferrals(p.portid(), p.referrals()));
                }
            }
        }
    }

    private void subsystemChanges(SubsystemConfig o, SubsystemConfig s) {
        String nqn = s.nqn();
        SubsystemAttributes a = o.attr();
        SubsystemAttributes b = s.attr();
        if (b.serial() != null && !b.serial().equals(a.serial())) {
            step(nqn + ": serial " + b.serial(), () -> live.setAttribute(nqn, "serial", b.serial()));
        }
        if (b.model() != null && !b.model().equals(a.model())) {
            step(nqn + ": model " + b.model(), () -> live.setAttribute(nqn, "model", b.model()));
        }
        if (a.cntlidMin() != b.cntlidMin() || a.cntlidMax() != b.cntlidMax() || !Objects.equals(a.qidMax(), b.qidMax())
                || !Objects.equals(a.version(), b.version()) || !Objects.equals(a.firmware(), b.firmware())
                || !Objects.equals(a.ieeeOui(), b.ieeeOui())) {
            restartNeeded(nqn + ": cntlid range, qid_max, version, firmware or ieee_oui");
        }
        for (String h : o.allowedHosts()) {
            if (!s.allowedHosts().contains(h)) {
                step(nqn + ": disallow host " + h, () -> live.removeHost(nqn, h));
            }
        }
        // hosts go before allow_any_host turns on, and come after it turns off (nvmet refuses both at once)
        if (a.allowAnyHost() != b.allowAnyHost()) {
            step(nqn + ": allow_any_host " + (b.allowAnyHost() ? "1" : "0"),
                    () -> live.setAttribute(nqn, "allow_any_host", b.allowAnyHost() ? "1" : "0"));
        }
        for (String h : s.allowedHosts()) {
            if (!o.allowedHosts().contains(h)) {
                step(nqn + ": allow host " + h, () -> live.addHost(nqn, h));
            }
        }
        for (NamespaceConfig n : o.namespaces()) {
            Optional<NamespaceConfig> w = s.namespace(n.nsid());
            if (w.isEmpty() || !sameNamespaceBut(n, w.get())) {
                step(nqn + ": remove namespace " + n.nsid(), () -> live.removeNamespace(nqn, n.nsid()));
            }
        }
        for (NamespaceConfig n : s.namespaces()) {
            Optional<NamespaceConfig> was = o.namespace(n.nsid());
            if (was.isEmpty() || !sameNamespaceBut(was.get(), n)) {
                step(nqn + ": add namespace " + n.nsid() + " (" + n.backend() + ")", () -> live.addNamespace(nqn, n));
            } else if (was.get().enable() != n.enable()) {
                step(nqn + ": " + (n.enable() ? "enable" : "disable") + " namespace " + n.nsid(),
                        () -> live.enableNamespace(nqn, n.nsid(), n.enable()));
            }
        }
    }

    /** Same backend and identity: only {@code enable} may differ (that is enabled or disabled, not replaced). */
    private static boolean sameNamespaceBut(NamespaceConfig a, NamespaceConfig b) {
        return a.backend().equals(b.backend()) && a.blockSize() == b.blockSize()
                && java.util.Arrays.equals(a.nguid(), b.nguid())
                && (a.uuid() == null || b.uuid() == null || a.uuid().equals(b.uuid()))
                && a.anaGrpid() == b.anaGrpid();
    }

    /** Same address and parameters; the exported subsystems are compared apart. */
    private static boolean samePort(PortConfig a, PortConfig b) {
        return a.addr().equals(b.addr()) && a.param().equals(b.param());
    }

    private static <K, V> Map<K, V> byKey(List<V> list, Function<V, K> key) {
        return list.stream().collect(Collectors.toMap(key, Function.identity(), (x, y) -> x,
                java.util.LinkedHashMap::new));
    }
}
