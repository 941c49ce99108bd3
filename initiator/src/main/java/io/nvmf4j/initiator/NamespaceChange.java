package io.nvmf4j.initiator;

import java.util.List;

/**
 * What a namespace rescan changed in {@link NvmeController#namespaces()}, as Linux's {@code nvme_scan_work()} sees
 * it after a Namespace Attribute Changed notice: namespaces that became active, namespaces that are gone (the
 * {@link Namespace} objects as they were), and namespaces whose size or block format changed (the new objects;
 * an old {@link Namespace} keeps the size it was identified with, so callers look the NSID up again).
 *
 * @param added    newly active namespaces, by NSID
 * @param removed  namespaces no longer active (their I/O fails with Invalid Namespace from now on)
 * @param resized  namespaces re-identified with another size or block size
 * @param reported the NSIDs the controller's Changed Namespace List (log page 04h) named; empty when the scan was
 *                 not caused by an event or the list overflowed (more than 1024 changes)
 */
public record NamespaceChange(List<Namespace> added, List<Namespace> removed, List<Namespace> resized,
                              List<Long> reported) {

    public NamespaceChange {
        added = List.copyOf(added);
        removed = List.copyOf(removed);
        resized = List.copyOf(resized);
        reported = List.copyOf(reported);
    }

    /** True when the scan found the namespaces as they were. */
    public boolean isEmpty() {
        return added.isEmpty() && removed.isEmpty() && resized.isEmpty();
    }

    @Override
    public String toString() {
        return "NamespaceChange[added " + nsids(added) + ", removed " + nsids(removed) + ", resized " + nsids(resized)
                + ", reported " + reported + "]";
    }

    private static List<Long> nsids(List<Namespace> list) {
        return list.stream().map(Namespace::nsid).toList();
    }
}
