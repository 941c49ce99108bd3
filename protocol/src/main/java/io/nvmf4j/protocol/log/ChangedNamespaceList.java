package io.nvmf4j.protocol.log;

import io.nvmf4j.protocol.Wire;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The Changed Namespace List log page (04h; NVMe Base 2.0, 5.16.1.5): 4096 bytes, up to 1024 u32 NSIDs whose
 * attributes changed since the page was last read, zero terminated. When more than 1024 changed, the first entry is
 * FFFFFFFFh and the rest are zero. Linux: {@code nvmet_execute_get_log_changed_ns()}, {@code nvme_clear_changed_ns_log()}.
 */
public record ChangedNamespaceList(List<Long> nsids, boolean overflow) {

    public static final int SIZE = 4096;
    public static final int MAX_ENTRIES = 1024;
    public static final long OVERFLOW_MARKER = 0xFFFF_FFFFL;

    private static final ValueLayout.OfInt U32 = Wire.LE_U32;

    public ChangedNamespaceList {
        nsids = List.copyOf(nsids);
        if (overflow && !nsids.isEmpty()) {
            throw new IllegalArgumentException("an overflowed list carries no NSIDs");
        }
        if (nsids.size() > MAX_ENTRIES) {
            throw new IllegalArgumentException(nsids.size() + " NSIDs exceed 1024; use overflow()");
        }
        for (long id : nsids) {
            if (id < 1 || id >= OVERFLOW_MARKER) {
                throw new IllegalArgumentException("NSID " + id + " outside 1..FFFFFFFEh");
            }
        }
    }

    public static ChangedNamespaceList of(List<Long> nsids) {
        return nsids.size() > MAX_ENTRIES ? overflowed() : new ChangedNamespaceList(nsids, false);
    }

    /** More than 1024 namespaces changed: the host must rescan them all. */
    public static ChangedNamespaceList overflowed() {
        return new ChangedNamespaceList(List.of(), true);
    }

    public static ChangedNamespaceList decode(MemorySegment segment) {
        if (segment.byteSize() < SIZE) {
            throw new MalformedStructureException(
                    "changed namespace list needs " + SIZE + " bytes, got " + segment.byteSize());
        }
        long first = Integer.toUnsignedLong(segment.get(U32, 0));
        if (first == OVERFLOW_MARKER) {
            return overflowed();
        }
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < MAX_ENTRIES; i++) {
            long id = Integer.toUnsignedLong(segment.get(U32, i * 4L));
            if (id == 0) {
                break;
            }
            if (id == OVERFLOW_MARKER) {
                throw new MalformedStructureException("changed namespace list entry " + i
                        + " is FFFFFFFFh; that marker is only valid as the first entry");
            }
            ids.add(id);
        }
        return new ChangedNamespaceList(ids, false);
    }

    public void encode(MemorySegment segment) {
        if (segment.byteSize() < SIZE) {
            throw new IllegalArgumentException("changed namespace list needs " + SIZE + " bytes, got " + segment.byteSize());
        }
        segment.asSlice(0, SIZE).fill((byte) 0);
        if (overflow) {
            segment.set(U32, 0, (int) OVERFLOW_MARKER);
            return;
        }
        for (int i = 0; i < nsids.size(); i++) {
            segment.set(U32, i * 4L, (int) (long) nsids.get(i));
        }
    }

    @Override
    public String toString() {
        return overflow ? "ChangedNamespaceList[overflow]" : "ChangedNamespaceList" + nsids;
    }
}
