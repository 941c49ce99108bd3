package io.nvmf4j.config;

import java.util.List;
import java.util.Optional;

/**
 * An NVM subsystem (Linux {@code nvmet_subsys}).
 *
 * @param allowedHosts host NQNs allowed to connect (each declared under {@code hosts}); empty with
 *                     {@code attr.allowAnyHost()} means everybody
 * @param namespaces   file and RAM namespaces together, in nsid order
 */
public record SubsystemConfig(
        String nqn,
        SubsystemAttributes attr,
        List<String> allowedHosts,
        List<NamespaceConfig> namespaces) {

    public SubsystemConfig {
        allowedHosts = List.copyOf(allowedHosts);
        namespaces = List.copyOf(namespaces);
    }

    public Optional<NamespaceConfig> namespace(long nsid) {
        return namespaces.stream().filter(n -> n.nsid() == nsid).findFirst();
    }

    /** Whether a host with this NQN may connect (mirrors nvmet_host_allowed()). */
    public boolean hostAllowed(String hostNqn) {
        return attr.allowAnyHost() || allowedHosts.contains(hostNqn);
    }
}
