package io.nvmf4j.config;

import java.util.Map;

/**
 * A discovery referral under a port (Linux {@code nvmet_referral}): another discovery service the discovery log
 * page points hosts to. The address is kept as nvmetcli writes it ({@code adrfam, portid, traddr, treq, trsvcid,
 * trtype}); it may name any transport, since it describes somebody else's port.
 */
public record Referral(String name, Map<String, String> addr, boolean enable) {
    public Referral {
        addr = Map.copyOf(addr);
    }
}
