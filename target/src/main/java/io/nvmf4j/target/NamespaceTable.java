package io.nvmf4j.target;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A subsystem's namespaces by NSID (nvmet's {@code subsys->namespaces} xarray, SPDK's {@code subsystem->ns} array),
 * with the lookup the I/O path uses.
 *
 * <p>Threads: changed by whoever configures the subsystem ({@link Subsystem}'s namespace methods, any thread; the
 * map is concurrent), read by every poll group and admin queue at once. {@link #active(long)} runs per command:
 * it reads an array indexed by NSID that each change replaces whole (a volatile write, a rebuild under this
 * object's lock so that two changes at once cannot publish an older array last), so a lookup neither locks nor
 * boxes the NSID.
 */
final class NamespaceTable {

    /** NSIDs below this are looked up in the array; larger ones (rare) in the map. */
    private static final int FAST_NSIDS = 1024;

    private final ConcurrentSkipListMap<Long, SubsystemNamespace> byId = new ConcurrentSkipListMap<>();
    /** Namespaces by NSID below {@link #FAST_NSIDS}, rebuilt on every change: the I/O path looks up without boxing. */
    private volatile SubsystemNamespace[] byNsid = new SubsystemNamespace[0];

    int size() {
        return byId.size();
    }

    /** Whether {@code nsid} is configured at all, enabled or not. */
    boolean contains(long nsid) {
        return byId.containsKey(nsid);
    }

    /** The namespace {@code nsid}, enabled or not, or null. */
    SubsystemNamespace get(long nsid) {
        return byId.get(nsid);
    }

    /** Adds {@code ns} unless its NSID is taken; returns the namespace that holds the NSID already, or null. */
    SubsystemNamespace putIfAbsent(SubsystemNamespace ns) {
        SubsystemNamespace present = byId.putIfAbsent(ns.nsid(), ns);
        if (present == null) {
            rebuildLookup();
        }
        return present;
    }

    /** Removes {@code nsid}; returns the namespace removed, or null. */
    SubsystemNamespace remove(long nsid) {
        SubsystemNamespace ns = byId.remove(nsid);
        rebuildLookup();
        return ns;
    }

    /** Puts {@code ns} in the place of the namespace with its NSID; returns that one, or null (then nothing changed). */
    SubsystemNamespace replace(SubsystemNamespace ns) {
        return byId.replace(ns.nsid(), ns);
    }

    /** Publishes the table to {@link #active(long)} after a {@link #replace}. */
    void republish() {
        rebuildLookup();
    }

    /** The enabled namespace {@code nsid}, or null (nvmet_find_namespace()). */
    SubsystemNamespace active(long nsid) {
        SubsystemNamespace[] fast = byNsid;
        SubsystemNamespace ns = nsid >= 0 && nsid < fast.length ? fast[(int) nsid]
                : nsid < FAST_NSIDS ? null : byId.get(nsid);
        return ns != null && ns.isEnabled() ? ns : null;
    }

    /** Enabled namespaces in NSID order. */
    List<SubsystemNamespace> active() {
        List<SubsystemNamespace> list = new ArrayList<>();
        for (SubsystemNamespace ns : byId.values()) {
            if (ns.isEnabled()) {
                list.add(ns);
            }
        }
        return list;
    }

    /** All namespaces, enabled or not, in NSID order (a live view). */
    Collection<SubsystemNamespace> all() {
        return byId.values();
    }

    private synchronized void rebuildLookup() {
        int size = 0;
        for (Long nsid : byId.keySet()) {
            if (nsid < FAST_NSIDS) {
                size = (int) Math.max(size, nsid + 1);
            }
        }
        SubsystemNamespace[] fast = new SubsystemNamespace[size];
        for (SubsystemNamespace ns : byId.values()) {
            if (ns.nsid() < FAST_NSIDS) {
                fast[(int) ns.nsid()] = ns;
            }
        }
        byNsid = fast;
    }
}
