package io.nvmf4j.protocol.log;

import io.nvmf4j.protocol.Wire;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The Discovery log page (70h; NVMe-oF 1.1, 5.3, Figure 37): a 1024-byte header (GENCTR u64@0, NUMREC u64@8, RECFMT
 * u16@16, the rest reserved) followed by NUMREC {@link DiscoveryLogEntry}s of 1024 bytes each.
 *
 * <p>A host reads the header first, then the whole page, and repeats if GENCTR changed in between (Linux
 * {@code nvme_get_log_page()} loop in libnvme's {@code nvmf_get_discovery_log()}). A target that is given a short
 * buffer fills only what fits but still reports the full NUMREC (Linux {@code nvmet_execute_get_disc_log_page()}),
 * so {@link #entriesPresent()} may be fewer than {@link #numrec()}; {@link #entries()} insists on all of them.
 *
 * <p>Linux: {@code struct nvmf_disc_rsp_page_hdr}; SPDK: {@code struct spdk_nvmf_discovery_log_page}.
 */
public final class DiscoveryLogPage {

    public static final int HEADER_SIZE = 1024;
    public static final int OFFSET_GENCTR = 0;
    public static final int OFFSET_NUMREC = 8;
    public static final int OFFSET_RECFMT = 16;
    /** The only record format defined. */
    public static final int RECFMT_0 = 0;

    private static final ValueLayout.OfShort U16 = Wire.LE_U16;
    private static final ValueLayout.OfLong U64 = Wire.LE_U64;

    private final MemorySegment segment;

    private DiscoveryLogPage(MemorySegment segment) {
        this.segment = segment;
    }

    /** A view over a received page; needs at least the 1024-byte header, checks RECFMT. */
    public static DiscoveryLogPage wrap(MemorySegment segment) {
        if (segment.byteSize() < HEADER_SIZE) {
            throw new MalformedStructureException(
                    "discovery log page header needs " + HEADER_SIZE + " bytes, got " + segment.byteSize());
        }
        DiscoveryLogPage page = new DiscoveryLogPage(segment);
        if (page.recfmt() != RECFMT_0) {
            throw new MalformedStructureException("discovery log RECFMT " + page.recfmt() + " is not 0");
        }
        return page;
    }

    /** A zeroed page with room for {@code entries} entries. */
    public static DiscoveryLogPage allocate(int entries) {
        if (entries < 0) {
            throw new IllegalArgumentException("negative entry count " + entries);
        }
        return new DiscoveryLogPage(MemorySegment.ofArray(new byte[HEADER_SIZE + entries * DiscoveryLogEntry.SIZE]));
    }

    /** Bytes a page with {@code numrec} entries occupies. */
    public static long sizeFor(long numrec) {
        return HEADER_SIZE + numrec * DiscoveryLogEntry.SIZE;
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Generation counter: changes whenever the log changes. */
    public long genctr() { return segment.get(U64, OFFSET_GENCTR); }
    public DiscoveryLogPage genctr(long v) { segment.set(U64, OFFSET_GENCTR, v); return this; }
    /** Number of records the log holds (not necessarily the number in this buffer). */
    public long numrec() { return segment.get(U64, OFFSET_NUMREC); }
    public DiscoveryLogPage numrec(long v) { segment.set(U64, OFFSET_NUMREC, v); return this; }
    public int recfmt() { return Short.toUnsignedInt(segment.get(U16, OFFSET_RECFMT)); }
    public DiscoveryLogPage recfmt(int v) { segment.set(U16, OFFSET_RECFMT, (short) v); return this; }

    /** How many whole entries this buffer holds, capped at NUMREC. */
    public long entriesPresent() {
        long inBuffer = (segment.byteSize() - HEADER_SIZE) / DiscoveryLogEntry.SIZE;
        long numrec = numrec();
        return numrec < 0 ? inBuffer : Math.min(inBuffer, numrec);
    }

    /** Entry {@code index}; fails when NUMREC does not list it or the buffer does not hold it. */
    public DiscoveryLogEntry entry(long index) {
        long numrec = numrec();
        if (index < 0 || Long.compareUnsigned(index, numrec) >= 0) {
            throw new MalformedStructureException("discovery log entry " + index + " requested, NUMREC is "
                    + Long.toUnsignedString(numrec));
        }
        long offset = HEADER_SIZE + index * DiscoveryLogEntry.SIZE;
        if (segment.byteSize() - offset < DiscoveryLogEntry.SIZE) {
            throw new MalformedStructureException("discovery log entry " + index + " needs bytes " + offset + ".."
                    + (offset + DiscoveryLogEntry.SIZE - 1) + " but the page holds " + segment.byteSize() + " bytes");
        }
        return DiscoveryLogEntry.wrap(segment.asSlice(offset, DiscoveryLogEntry.SIZE));
    }

    /** All NUMREC entries; fails, naming both numbers, when the buffer is shorter than NUMREC entries. */
    public List<DiscoveryLogEntry> entries() {
        long numrec = numrec();
        long present = (segment.byteSize() - HEADER_SIZE) / DiscoveryLogEntry.SIZE;
        if (numrec < 0 || numrec > present) {
            throw new MalformedStructureException("discovery log claims NUMREC " + Long.toUnsignedString(numrec)
                    + " entries but the " + segment.byteSize() + "-byte page holds only " + present);
        }
        List<DiscoveryLogEntry> out = new ArrayList<>((int) numrec);
        for (long i = 0; i < numrec; i++) {
            out.add(entry(i));
        }
        return List.copyOf(out);
    }

    @Override
    public String toString() {
        return "DiscoveryLogPage[genctr=" + Long.toUnsignedString(genctr()) + " numrec=" + Long.toUnsignedString(numrec())
                + " recfmt=" + recfmt() + " bytes=" + segment.byteSize() + "]";
    }
}
