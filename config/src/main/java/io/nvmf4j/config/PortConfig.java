package io.nvmf4j.config;

import java.util.List;

/**
 * A port (Linux {@code nvmet_port}): an address to listen on and the subsystems reachable through it.
 *
 * @param portid     the port id reported in the discovery log (0-65535, Linux {@code kstrtou16})
 * @param subsystems NQNs of the subsystems exported on this port, each declared under {@code subsystems}
 */
public record PortConfig(
        int portid,
        PortAddress addr,
        PortParams param,
        List<String> subsystems,
        List<Referral> referrals,
        List<AnaGroup> anaGroups) {

    public PortConfig {
        subsystems = List.copyOf(subsystems);
        referrals = List.copyOf(referrals);
        anaGroups = List.copyOf(anaGroups);
    }
}
