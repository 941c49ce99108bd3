package io.nvmf4j.initiator;

import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.log.DiscoveryLogPage;
import io.nvmf4j.protocol.log.LogPageId;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the Discovery Log Page (log 70h, NVMe-oF 1.1, 5.3) the way libnvme's {@code nvme_discovery_log()} does:
 * the 1024-byte header (RAE set) for GENCTR and NUMREC, then all NUMREC records from offset 1024 in 4 KiB pieces,
 * then the header again (RAE clear); if GENCTR moved meanwhile, start over, at most {@code maxRetries} times.
 */
public final class Discovery {

    /** nvme-cli's default number of tries (MAX_DISC_RETRIES). */
    public static final int DEFAULT_MAX_RETRIES = 10;

    private Discovery() {
    }

    /** Connects to the discovery controller in {@code options}, reads the log, disconnects. */
    public static DiscoveryLog discover(ConnectOptions options) throws NvmfException {
        if (!options.isDiscovery()) {
            options = options.toBuilder().subsystemNqn(io.nvmf4j.protocol.Nqn.DISCOVERY).ioQueues(0)
                    .keepAliveTimeout(java.time.Duration.ZERO).build();
        }
        try (NvmeController controller = NvmeController.connect(options)) {
            return readLog(controller, DEFAULT_MAX_RETRIES);
        }
    }

    /** Reads the whole log from a connected (discovery) controller. */
    public static DiscoveryLog readLog(NvmeController controller, int maxRetries) throws NvmfException {
        int lid = LogPageId.DISCOVERY.code();
        int tries = 0;
        while (true) {
            DiscoveryLogPage header = DiscoveryLogPage.wrap(
                    controller.getLogPage(lid, 0, 0, DiscoveryLogPage.HEADER_SIZE, true));
            long genctr = header.genctr();
            long numrec = header.numrec();
            if (numrec == 0) {
                return new DiscoveryLog(genctr, List.of());
            }
            long bytes = numrec * DiscoveryLogEntry.SIZE;
            if (bytes > Integer.MAX_VALUE - DiscoveryLogPage.HEADER_SIZE) {
                throw new NvmfException("discovery log claims " + numrec + " records, more than can be read");
            }
            MemorySegment entries = controller.getLogPage(lid, 0, DiscoveryLogPage.HEADER_SIZE, (int) bytes, true);
            DiscoveryLogPage again = DiscoveryLogPage.wrap(
                    controller.getLogPage(lid, 0, 0, DiscoveryLogPage.HEADER_SIZE, false));
            if (again.genctr() == genctr) {
                if (again.numrec() != numrec) {
                    throw new NvmfException("discovery log NUMREC changed from " + numrec + " to " + again.numrec()
                            + " under the same GENCTR " + genctr);
                }
                List<DiscoveryRecord> records = new ArrayList<>();
                for (long i = 0; i < numrec; i++) {
                    records.add(DiscoveryRecord.from(DiscoveryLogEntry.wrap(
                            entries.asSlice(i * DiscoveryLogEntry.SIZE, DiscoveryLogEntry.SIZE))));
                }
                return new DiscoveryLog(genctr, records);
            }
            if (++tries >= maxRetries) {
                throw new NvmfException("discovery log kept changing (GENCTR " + genctr + " -> " + again.genctr()
                        + ") over " + maxRetries + " tries");
            }
        }
    }
}
