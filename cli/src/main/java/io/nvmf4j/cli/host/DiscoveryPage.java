package io.nvmf4j.cli.host;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.Discovery;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import java.util.List;

/**
 * The Discovery Log Page (log 70h, NVMe-oF 1.1, 5.3) as raw entries, for printing every field nvme-cli prints
 * (EFLAGS and the RDMA TSAS P_KEY included, which the library's {@code DiscoveryRecord} does not carry).
 *
 * @param genctr  the generation counter
 * @param entries NUMREC entries, each a view over its 1024 bytes
 */
public record DiscoveryPage(long genctr, List<DiscoveryLogEntry> entries) {

    /**
     * Connects to the discovery controller in {@code fabric}, reads the whole log, disconnects: through the
     * library's one discovery-log reader ({@link Discovery#discoverEntries}), so the bound on the records a
     * controller may claim holds here too.
     */
    public static DiscoveryPage read(FabricOptions fabric) {
        ConnectOptions options = fabric.discoveryOptions();
        try {
            Discovery.Entries log = Discovery.discoverEntries(options);
            return new DiscoveryPage(log.generation(), log.entries());
        } catch (NvmfException e) {
            throw Connections.failure(fabric, options, e);
        }
    }
}
