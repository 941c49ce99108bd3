package io.nvmf4j.cli.mount.ublk;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;

/**
 * {@code struct ublk_params} as SET_PARAMS takes it: the header ({@code len}, {@code types}) and the two parameter
 * sets a disk needs, {@code struct ublk_param_basic} (block sizes, largest request, capacity, volatile cache and
 * FUA) and {@code struct ublk_param_discard} (deallocate and write-zeroes limits). Later kernels append more sets
 * (devt, zoned, dma); {@code len} says how far this one goes, and the kernel zeroes what it does not get.
 *
 * @param attributes          {@code UBLK_ATTR_*}
 * @param logicalBlockShift   log2 of the logical block size (NVMe: the LBA format's LBADS)
 * @param physicalBlockShift  log2 of the physical block size
 * @param optimalIoShift      {@code io_opt_shift}
 * @param minimumIoShift      {@code io_min_shift}
 * @param maxSectors          the largest request, in 512-byte sectors (NVMe: MDTS)
 * @param deviceSectors       the capacity, in 512-byte sectors
 * @param discard             the discard set, or null for a device without discard and write zeroes
 */
public record DeviceParams(int attributes, int logicalBlockShift, int physicalBlockShift, int optimalIoShift,
                           int minimumIoShift, int maxSectors, long deviceSectors, Discard discard) {
    /** {@code sizeof(struct ublk_params)} with the basic and discard sets (6.1's), padded to its 8-byte alignment. */
    public static final int SIZE = 64;
    static final long LEN = 0;                 // __u32
    static final long TYPES = 4;               // __u32 UBLK_PARAM_TYPE_*
    static final long BASIC = 8;
    static final long BASIC_ATTRS = 0;         // __u32
    static final long LOGICAL_BS_SHIFT = 4;    // __u8
    static final long PHYSICAL_BS_SHIFT = 5;   // __u8
    static final long IO_OPT_SHIFT = 6;        // __u8
    static final long IO_MIN_SHIFT = 7;        // __u8
    static final long MAX_SECTORS = 8;         // __u32
    static final long CHUNK_SECTORS = 12;      // __u32
    static final long DEV_SECTORS = 16;        // __u64
    static final long VIRT_BOUNDARY_MASK = 24; // __u64
    static final long DISCARD = 40;
    static final long DISCARD_ALIGNMENT = 0;         // __u32
    static final long DISCARD_GRANULARITY = 4;       // __u32
    static final long MAX_DISCARD_SECTORS = 8;       // __u32
    static final long MAX_WRITE_ZEROES_SECTORS = 12; // __u32
    static final long MAX_DISCARD_SEGMENTS = 16;     // __u16

    public static final int TYPE_BASIC = 1;
    public static final int TYPE_DISCARD = 1 << 1;

    public static final int ATTR_READ_ONLY = 1;
    public static final int ATTR_ROTATIONAL = 1 << 1;
    /** {@code UBLK_ATTR_VOLATILE_CACHE}: the device has a write cache, so Flush matters (NVMe: VWC). */
    public static final int ATTR_VOLATILE_CACHE = 1 << 2;
    /** {@code UBLK_ATTR_FUA}: writes may carry FUA. */
    public static final int ATTR_FUA = 1 << 3;

    /**
     * {@code struct ublk_param_discard}.
     *
     * @param alignment             {@code discard_alignment}, bytes
     * @param granularity           {@code discard_granularity}, bytes
     * @param maxDiscardSectors     the largest discard, sectors
     * @param maxWriteZeroesSectors the largest write zeroes, sectors (0: none)
     * @param maxSegments           {@code max_discard_segments} (NVMe Dataset Management: up to 256 ranges)
     */
    public record Discard(int alignment, int granularity, int maxDiscardSectors, int maxWriteZeroesSectors,
                          int maxSegments) {
    }

    /** Reads what GET_PARAMS wrote: the basic set, and the discard set when {@code types} has it. */
    public static DeviceParams read(MemorySegment from) {
        int types = from.get(JAVA_INT, TYPES);
        MemorySegment basic = from.asSlice(BASIC, DISCARD - BASIC);
        Discard discard = null;
        if ((types & TYPE_DISCARD) != 0) {
            MemorySegment d = from.asSlice(DISCARD, 20);
            discard = new Discard(d.get(JAVA_INT, DISCARD_ALIGNMENT), d.get(JAVA_INT, DISCARD_GRANULARITY),
                    d.get(JAVA_INT, MAX_DISCARD_SECTORS), d.get(JAVA_INT, MAX_WRITE_ZEROES_SECTORS),
                    Short.toUnsignedInt(d.get(JAVA_SHORT, MAX_DISCARD_SEGMENTS)));
        }
        return new DeviceParams(basic.get(JAVA_INT, BASIC_ATTRS), basic.get(JAVA_BYTE, LOGICAL_BS_SHIFT),
                basic.get(JAVA_BYTE, PHYSICAL_BS_SHIFT), basic.get(JAVA_BYTE, IO_OPT_SHIFT),
                basic.get(JAVA_BYTE, IO_MIN_SHIFT), basic.get(JAVA_INT, MAX_SECTORS),
                basic.get(JAVA_LONG, DEV_SECTORS), discard);
    }

    /** Writes the structure (every other byte zero) into {@code to}, at least {@link #SIZE} bytes. */
    public void write(MemorySegment to) {
        to.asSlice(0, SIZE).fill((byte) 0);
        to.set(JAVA_INT, LEN, SIZE);
        to.set(JAVA_INT, TYPES, TYPE_BASIC | (discard != null ? TYPE_DISCARD : 0));
        MemorySegment basic = to.asSlice(BASIC, DISCARD - BASIC);
        basic.set(JAVA_INT, BASIC_ATTRS, attributes);
        basic.set(JAVA_BYTE, LOGICAL_BS_SHIFT, (byte) logicalBlockShift);
        basic.set(JAVA_BYTE, PHYSICAL_BS_SHIFT, (byte) physicalBlockShift);
        basic.set(JAVA_BYTE, IO_OPT_SHIFT, (byte) optimalIoShift);
        basic.set(JAVA_BYTE, IO_MIN_SHIFT, (byte) minimumIoShift);
        basic.set(JAVA_INT, MAX_SECTORS, maxSectors);
        basic.set(JAVA_LONG, DEV_SECTORS, deviceSectors);
        if (discard != null) {
            MemorySegment d = to.asSlice(DISCARD, 20);
            d.set(JAVA_INT, DISCARD_ALIGNMENT, discard.alignment());
            d.set(JAVA_INT, DISCARD_GRANULARITY, discard.granularity());
            d.set(JAVA_INT, MAX_DISCARD_SECTORS, discard.maxDiscardSectors());
            d.set(JAVA_INT, MAX_WRITE_ZEROES_SECTORS, discard.maxWriteZeroesSectors());
            d.set(JAVA_SHORT, MAX_DISCARD_SEGMENTS, (short) discard.maxSegments());
        }
    }
}
