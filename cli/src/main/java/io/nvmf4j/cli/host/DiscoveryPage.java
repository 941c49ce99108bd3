package io.nvmf4j.cli.host;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.log.DiscoveryLogPage;
import io.nvmf4j.protocol.log.LogPageId;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The Discovery Log Page (log 70h, NVMe-oF 1.1, 5.3) as raw entries, for printing every field nvme-cli prints
 * (EFLAGS and the RDMA TSAS P_KEY included, which the library's {@code DiscoveryRecord} does not carry).
 *
 * @param genctr  the generation counter
 * @param entries NUMREC entries, each a view over its 1024 bytes
 */
public record DiscoveryPage(long genctr, List<DiscoveryLogEntry> entries) {

    /** nvme-cli's MAX_DISC_RETRIES. */
    static final int MAX_RETRIES = 10;

    /** Connects to the discovery controller in {@code fabric}, reads the whole log, disconnects. */
    public static DiscoveryPage read(FabricOptions fabric) {
        ConnectOptions options = fabric.discoveryOptions();
        try (NvmeController controller = NvmeController.connect(options)) {
            return read(controller);
        } catch (NvmfException e) {
            throw Connections.failure(fabric, options, e);
        }
    }

    /**
     * libnvme's {@code nvme_discovery_log()}: the header with RAE set for GENCTR and NUMREC, the NUMREC entries
     * from offset 1024, then the header again with RAE clear; if GENCTR moved meanwhile, again (at most 10 times).
     */
    static DiscoveryPage read(NvmeController controller) throws NvmfException {
        int lid = LogPageId.DISCOVERY.code();
        for (int tries = 1; ; tries++) {
            DiscoveryLogPage header = DiscoveryLogPage.wrap(
                    controller.getLogPage(lid, 0, 0, DiscoveryLogPage.HEADER_SIZE, true));
            long genctr = header.genctr();
            long numrec = header.numrec();
            if (numrec > (Integer.MAX_VALUE - DiscoveryLogPage.HEADER_SIZE) / DiscoveryLogEntry.SIZE) {
                throw new NvmfException("discovery log claims " + numrec + " records, more than can be read");
            }
            MemorySegment all = numrec == 0 ? MemorySegment.NULL : controller.getLogPage(lid, 0,
                    DiscoveryLogPage.HEADER_SIZE, (int) numrec * DiscoveryLogEntry.SIZE, true);
            DiscoveryLogPage again = DiscoveryLogPage.wrap(
                    controller.getLogPage(lid, 0, 0, DiscoveryLogPage.HEADER_SIZE, false));
            if (again.genctr() == genctr && again.numrec() == numrec) {
                List<DiscoveryLogEntry> entries = new ArrayList<>();
                for (long i = 0; i < numrec; i++) {
                    entries.add(DiscoveryLogEntry.wrap(
                            all.asSlice(i * DiscoveryLogEntry.SIZE, DiscoveryLogEntry.SIZE)));
                }
                return new DiscoveryPage(genctr, List.copyOf(entries));
            }
            if (tries >= MAX_RETRIES) {
                throw new NvmfException("discovery log kept changing (GENCTR " + genctr + " -> " + again.genctr()
                        + ") over " + MAX_RETRIES + " tries");
            }
        }
    }
}
