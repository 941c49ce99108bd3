package io.nvmf4j.config;

import java.util.List;
import java.util.Optional;

/**
 * A whole target configuration: the three nvmetcli {@code saveconfig.json} lists (hosts, ports, subsystems) and
 * nvmf4j's own settings. RAM namespaces declared in the {@code "nvmf4j"} section appear here merged into their
 * subsystem's namespace list, so the target sees one list per subsystem whatever section they came from.
 *
 * <p>Instances come from {@link ConfigLoader} (a file) or {@link QuickConfig} (the command line); both run the same
 * validation. {@link ConfigWriter#toJson(TargetConfig)} writes one back in nvmetcli form.
 */
public record TargetConfig(
        List<HostConfig> hosts,
        List<PortConfig> ports,
        List<SubsystemConfig> subsystems,
        Nvmf4jSettings nvmf4j) {

    public TargetConfig {
        hosts = List.copyOf(hosts);
        ports = List.copyOf(ports);
        subsystems = List.copyOf(subsystems);
    }

    public Optional<SubsystemConfig> subsystem(String nqn) {
        return subsystems.stream().filter(s -> s.nqn().equals(nqn)).findFirst();
    }

    /** nvmetcli's JSON text for this configuration (see {@link ConfigWriter}). */
    public String toJson() {
        return ConfigWriter.toJson(this);
    }
}
