package io.nvmf4j.protocol.admin;

import io.nvmf4j.protocol.Wire;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The Active Namespace ID list (CNS 02h; NVMe Base 2.0, 5.17.2.2 and 4.4.2 "Namespace List"): 4096 bytes, up to
 * 1024 little-endian 32-bit NSIDs in increasing order, the unused entries zero. The controller lists only NSIDs
 * greater than the NSID of the command, so a host pages through with the last NSID it saw.
 *
 * <p>Linux: {@code nvmet_execute_identify_nslist()}, {@code nvme_scan_ns_list()}; SPDK:
 * {@code struct spdk_nvme_ns_list}.
 */
public final class ActiveNamespaceList {

    public static final int SIZE = 4096;
    public static final int MAX_ENTRIES = 1024;
    public static final int ENTRY_SIZE = 4;

    private static final ValueLayout.OfInt U32 = Wire.LE_U32;

    private ActiveNamespaceList() {
    }

    /**
     * Decodes the NSIDs up to the first zero entry. Fails on a buffer shorter than 4096 bytes, on NSIDs that are
     * not strictly increasing, on the broadcast value FFFFFFFFh, and on a non-zero entry after the terminator.
     */
    public static List<Long> decode(MemorySegment segment) {
        if (segment.byteSize() < SIZE) {
            throw new MalformedStructureException(
                    "active namespace ID list needs " + SIZE + " bytes, got " + segment.byteSize());
        }
        List<Long> ids = new ArrayList<>();
        long previous = 0;
        int i = 0;
        for (; i < MAX_ENTRIES; i++) {
            long nsid = Integer.toUnsignedLong(segment.get(U32, (long) i * ENTRY_SIZE));
            if (nsid == 0) {
                break;
            }
            if (nsid == 0xFFFF_FFFFL) {
                throw new MalformedStructureException("active namespace ID list entry " + i + " is FFFFFFFFh (broadcast)");
            }
            if (nsid <= previous) {
                throw new MalformedStructureException("active namespace ID list entry " + i + " (" + nsid
                        + ") is not greater than the entry before it (" + previous + ")");
            }
            ids.add(nsid);
            previous = nsid;
        }
        for (int j = i + 1; j < MAX_ENTRIES; j++) {
            if (segment.get(U32, (long) j * ENTRY_SIZE) != 0) {
                throw new MalformedStructureException("active namespace ID list entry " + j
                        + " is non-zero after the terminating zero at entry " + i);
            }
        }
        return List.copyOf(ids);
    }

    /** Writes up to 1024 NSIDs (strictly increasing, 1..FFFFFFFEh) and zeroes the rest of the 4096 bytes. */
    public static void encode(MemorySegment segment, List<Long> nsids) {
        if (segment.byteSize() < SIZE) {
            throw new IllegalArgumentException("active namespace ID list needs " + SIZE + " bytes, got " + segment.byteSize());
        }
        if (nsids.size() > MAX_ENTRIES) {
            throw new IllegalArgumentException(nsids.size() + " NSIDs do not fit; at most " + MAX_ENTRIES + " per list");
        }
        long previous = 0;
        for (long nsid : nsids) {
            if (nsid <= previous || nsid >= 0xFFFF_FFFFL) {
                throw new IllegalArgumentException("NSID " + nsid + " is not increasing or not in 1..FFFFFFFEh");
            }
            previous = nsid;
        }
        segment.asSlice(0, SIZE).fill((byte) 0);
        for (int i = 0; i < nsids.size(); i++) {
            segment.set(U32, (long) i * ENTRY_SIZE, (int) (long) nsids.get(i));
        }
    }
}
