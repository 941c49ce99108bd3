package io.nvmf4j.initiator;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.admin.ActiveNamespaceList;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Pages through the Active Namespace ID list (Identify CNS 02h; NVMe Base 2.0, 5.17.2.2: "a list of up to 1024
 * active NSIDs ... greater than the value specified in the NSID field", in increasing order) the way Linux
 * {@code nvme_scan_ns_list()} does, with the bounds a controller's data cannot move (issue 13, F7):
 *
 * <ul>
 *   <li>every page is well formed (strictly increasing, zero-terminated: {@link ActiveNamespaceList#decode});</li>
 *   <li>every page continues after the last NSID of the page before (the one the host asked from): a controller
 *       repeating a page, or going backwards, is refused instead of being read forever;</li>
 *   <li>no NSID exceeds NN of Identify Controller (5.17.2.1: "the maximum value of a valid NSID"), and the list
 *       ends once NN is reached;</li>
 *   <li>at most {@link #MAX_PAGES} pages (1 Mi namespaces), whatever NN says.</li>
 * </ul>
 *
 * Linux bounds none of these: its loop ends on a zero entry only, so a controller that never sends one keeps it
 * scanning.
 */
final class NamespaceListReader {

    /** Pages read at most: 1024 x 1024 NSIDs, far above any real subsystem, small enough to hold in memory. */
    static final int MAX_PAGES = 1024;
    /** The highest NSID a list may name: FFFFFFFFh is the broadcast value (NVMe Base 2.0, 3.2.1.1). */
    private static final long MAX_NSID = 0xFFFF_FFFEL;

    /** Fetches the 4096-byte list page of NSIDs greater than {@code afterNsid}. */
    @FunctionalInterface
    interface PageSource {
        MemorySegment page(long afterNsid) throws NvmfException;
    }

    private NamespaceListReader() {
    }

    /**
     * Reads the whole list.
     *
     * @param controller the controller's name, for messages
     * @param nn         NN of Identify Controller; 0 (not reported) bounds only by {@link #MAX_PAGES}
     */
    static List<Long> read(String controller, long nn, PageSource source) throws NvmfException {
        long highest = nn == 0 ? MAX_NSID : Math.min(nn, MAX_NSID);
        List<Long> all = new ArrayList<>();
        long after = 0;
        for (int pages = 0; pages < MAX_PAGES; pages++) {
            List<Long> page;
            try {
                page = ActiveNamespaceList.decode(source.page(after));
            } catch (MalformedStructureException e) {
                throw violation(controller, "page after NSID " + after + " is malformed: " + e.getMessage());
            }
            if (!page.isEmpty() && page.getFirst() <= after) {
                throw violation(controller, "page after NSID " + after + " starts at NSID " + page.getFirst()
                        + ", not greater than " + after + " (a repeated or backward page)");
            }
            if (!page.isEmpty() && page.getLast() > highest) {
                throw violation(controller, "names NSID " + page.getLast() + ", above the controller's NN " + nn);
            }
            all.addAll(page);
            if (page.size() < ActiveNamespaceList.MAX_ENTRIES || page.getLast() == highest) {
                return all;
            }
            after = page.getLast();
        }
        throw violation(controller, "continues for more than " + MAX_PAGES + " pages ("
                + all.size() + " NSIDs so far)");
    }

    private static NvmfException violation(String controller, String what) {
        return new NvmfException(controller + ": the active namespace list (Identify CNS 02h) " + what);
    }
}
