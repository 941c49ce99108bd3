package io.nvmf4j.initiator;

import java.util.List;

/**
 * A consistent Discovery Log Page: every record read under one generation counter.
 *
 * @param generation GENCTR
 * @param records    all records, referrals included, in log order
 */
public record DiscoveryLog(long generation, List<DiscoveryRecord> records) {

    public DiscoveryLog {
        records = List.copyOf(records);
    }

    /** Entries that name NVM subsystems (and the current discovery controller). */
    public List<DiscoveryRecord> subsystems() {
        return records.stream().filter(r -> !r.isReferral()).toList();
    }

    /** Entries that refer to other discovery services. */
    public List<DiscoveryRecord> referrals() {
        return records.stream().filter(DiscoveryRecord::isReferral).toList();
    }
}
