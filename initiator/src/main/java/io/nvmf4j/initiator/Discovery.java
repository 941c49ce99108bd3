package io.nvmf4j.initiator;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.log.DiscoveryLogPage;
import io.nvmf4j.protocol.log.LogPageId;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the Discovery Log Page (log 70h) by the procedure of NVMe-oF 1.1, 5.3, as libnvme's
 * {@code nvme_discovery_log()} does: the 1024-byte header (RAE set) for GENCTR and NUMREC, then the NUMREC records
 * from offset 1024, then the header again (RAE clear); if GENCTR moved meanwhile, start over, at most
 * {@code maxRetries} times; if NUMREC moved under the same GENCTR, fail.
 *
 * <p>NUMREC comes from the peer, so it is bounded before anything is allocated for it (issue 13, F8): at most
 * {@link #MAX_RECORDS} records (libnvme trusts it and callocs 1 KiB per claimed record). The records are fetched
 * four to a 4 KiB Get Log Page (libnvme's NVME_LOG_PAGE_PDU_SIZE) and decoded chunk by chunk, so the host holds
 * only what the controller actually sent.
 */
public final class Discovery {

    /** nvme-cli's default number of tries (MAX_DISC_RETRIES). */
    public static final int DEFAULT_MAX_RETRIES = 10;
    /**
     * Most records a discovery log may claim: 1 MiB of log, one record per port x subsystem pair the host may
     * reach, far above a real fabric's, small enough that a lying controller cannot exhaust the heap.
     */
    public static final int MAX_RECORDS = 1024;

    private static final int RECORDS_PER_CHUNK = NvmeController.ADMIN_BUFFER_SIZE / DiscoveryLogEntry.SIZE;

    private Discovery() {
    }

    /**
     * The log as the controller sent it: GENCTR and NUMREC raw 1024-byte entries, each a view over a copy the host
     * holds (every field nvme-cli prints, EFLAGS and the RDMA TSAS included).
     *
     * @param generation GENCTR
     * @param entries    the entries in log order
     */
    public record Entries(long generation, List<DiscoveryLogEntry> entries) {

        public Entries {
            entries = List.copyOf(entries);
        }
    }

    /** Connects to the discovery controller in {@code options}, reads the log, disconnects. */
    public static DiscoveryLog discover(ConnectOptions options) throws NvmfException {
        Entries raw = discoverEntries(options);
        return new DiscoveryLog(raw.generation(), raw.entries().stream().map(DiscoveryRecord::from).toList());
    }

    /** As {@link #discover}, the entries raw (what {@code nvmf4j discover} prints). */
    public static Entries discoverEntries(ConnectOptions options) throws NvmfException {
        if (!options.isDiscovery()) {
            options = options.toBuilder().subsystemNqn(Nqn.DISCOVERY).ioQueues(0)
                    .keepAliveTimeout(java.time.Duration.ZERO).build();
        }
        try (NvmeController controller = NvmeController.connect(options)) {
            return readEntries(controller, DEFAULT_MAX_RETRIES);
        }
    }

    /** Reads the whole log from a connected (discovery) controller. */
    public static DiscoveryLog readLog(NvmeController controller, int maxRetries) throws NvmfException {
        Entries raw = readEntries(controller, maxRetries);
        return new DiscoveryLog(raw.generation(), raw.entries().stream().map(DiscoveryRecord::from).toList());
    }

    /**
     * Reads the whole log from a connected (discovery) controller, the entries raw: the one reader of the
     * discovery log in this project (the library's {@link #readLog} and the command line's {@code discover} and
     * {@code list-subsys} both go through it), so the NUMREC bound holds for every caller.
     */
    public static Entries readEntries(NvmeController controller, int maxRetries) throws NvmfException {
        int lid = LogPageId.DISCOVERY.code();
        return readEntries(controller.name(),
                (offset, length, rae) -> controller.getLogPage(lid, 0, offset, length, rae), maxRetries);
    }

    /** One Get Log Page of the discovery log: {@code length} bytes from {@code offset}, as the controller sent them. */
    @FunctionalInterface
    interface LogReader {
        MemorySegment read(long offset, int length, boolean rae) throws NvmfException;
    }

    /**
     * {@link #readEntries(NvmeController, int)} over any source of log bytes: the parsing of what the controller
     * sent, apart from the transport (so it can be fuzzed without one).
     */
    static Entries readEntries(String name, LogReader log, int maxRetries) throws NvmfException {
        int tries = 0;
        while (true) {
            DiscoveryLogPage header = header(name, log.read(0, DiscoveryLogPage.HEADER_SIZE, true));
            long genctr = header.genctr();
            long numrec = header.numrec();
            if (Long.compareUnsigned(numrec, MAX_RECORDS) > 0) {
                throw new NvmfException(name + ": the discovery log claims "
                        + Long.toUnsignedString(numrec) + " records, more than the " + MAX_RECORDS
                        + " this host reads");
            }
            if (numrec == 0) {
                return new Entries(genctr, List.of());
            }
            List<DiscoveryLogEntry> entries = new ArrayList<>((int) numrec);
            for (int first = 0; first < numrec; first += RECORDS_PER_CHUNK) {
                int count = (int) Math.min(RECORDS_PER_CHUNK, numrec - first);
                MemorySegment chunk = log.read(DiscoveryLogPage.HEADER_SIZE + (long) first * DiscoveryLogEntry.SIZE,
                        count * DiscoveryLogEntry.SIZE, true);
                for (int i = 0; i < count; i++) {
                    entries.add(DiscoveryLogEntry.wrap(
                            chunk.asSlice((long) i * DiscoveryLogEntry.SIZE, DiscoveryLogEntry.SIZE)));
                }
            }
            DiscoveryLogPage again = header(name, log.read(0, DiscoveryLogPage.HEADER_SIZE, false));
            if (again.genctr() == genctr) {
                if (again.numrec() != numrec) {
                    throw new NvmfException(name + ": discovery log NUMREC changed from " + numrec
                            + " to " + Long.toUnsignedString(again.numrec()) + " under the same GENCTR " + genctr);
                }
                return new Entries(genctr, entries);
            }
            if (++tries >= maxRetries) {
                throw new NvmfException(name + ": discovery log kept changing (GENCTR " + genctr
                        + " -> " + again.genctr() + ") over " + maxRetries + " tries");
            }
        }
    }

    /**
     * The log's header; one this host cannot read (RECFMT other than 0) is the controller's protocol error, reported
     * as {@link NvmfException} like every other fault of the log, not as the decoder's internal exception.
     */
    private static DiscoveryLogPage header(String name, MemorySegment data) throws NvmfException {
        try {
            return DiscoveryLogPage.wrap(data);
        } catch (MalformedStructureException e) {
            throw new NvmfException(name + ": malformed discovery log header: " + e.getMessage(), e);
        }
    }
}
