package io.nvmf4j.protocol.log;

import io.nvmf4j.protocol.Wire;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One 64-byte Error Information log entry (log page 01h; NVMe Base 2.0, 5.16.1.2, Figure 205): Error Count u64@0
 * (0 = unused entry), SQID u16@8, CID u16@10, Status Field u16@12 (bit 0 the phase tag, bits 15:1 the status as in
 * the completion), Parameter Error Location u16@14 (byte in bits 7:0, bit in bits 10:8; FFFFh = none), LBA u64@16,
 * Namespace u32@24, Vendor Specific Information Available u8@28, Transport Type u8@29, Command Specific Information
 * u64@32, Transport Type Specific Information u16@40.
 *
 * <p>Linux: {@code struct nvme_error_slot}; SPDK: {@code struct spdk_nvme_error_information_entry}.
 */
public final class ErrorLogEntry {

    public static final int SIZE = 64;
    public static final int OFFSET_ERROR_COUNT = 0;
    public static final int OFFSET_SQID = 8;
    public static final int OFFSET_CID = 10;
    public static final int OFFSET_STATUS = 12;
    public static final int OFFSET_PARAMETER_ERROR_LOCATION = 14;
    public static final int OFFSET_LBA = 16;
    public static final int OFFSET_NSID = 24;
    public static final int OFFSET_VENDOR_SPECIFIC = 28;
    public static final int OFFSET_TRTYPE = 29;
    public static final int OFFSET_COMMAND_SPECIFIC = 32;
    public static final int OFFSET_TRTYPE_SPECIFIC = 40;

    /** Parameter Error Location value meaning "not specific to a field". */
    public static final int NO_PARAMETER_LOCATION = 0xFFFF;

    private static final ValueLayout.OfShort U16 = Wire.LE_U16;
    private static final ValueLayout.OfInt U32 = Wire.LE_U32;
    private static final ValueLayout.OfLong U64 = Wire.LE_U64;

    private final MemorySegment segment;

    private ErrorLogEntry(MemorySegment segment) {
        this.segment = segment;
    }

    public static ErrorLogEntry wrap(MemorySegment segment) {
        if (segment.byteSize() < SIZE) {
            throw new MalformedStructureException("error log entry needs " + SIZE + " bytes, got " + segment.byteSize());
        }
        return new ErrorLogEntry(segment.asSlice(0, SIZE));
    }

    /** Entry {@code index} of an error log page; fails when the page does not hold it. */
    public static ErrorLogEntry wrap(MemorySegment page, int index) {
        long offset = (long) index * SIZE;
        if (index < 0 || page.byteSize() - offset < SIZE) {
            throw new MalformedStructureException("error log entry " + index + " needs bytes " + offset + ".."
                    + (offset + SIZE - 1) + ", page holds " + page.byteSize());
        }
        return new ErrorLogEntry(page.asSlice(offset, SIZE));
    }

    public static ErrorLogEntry allocate() {
        return new ErrorLogEntry(MemorySegment.ofArray(new byte[SIZE]));
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Unique, increasing error number; 0 marks an unused entry. */
    public long errorCount() { return segment.get(U64, OFFSET_ERROR_COUNT); }
    public ErrorLogEntry errorCount(long v) { segment.set(U64, OFFSET_ERROR_COUNT, v); return this; }
    public int sqid() { return Short.toUnsignedInt(segment.get(U16, OFFSET_SQID)); }
    public ErrorLogEntry sqid(int v) { segment.set(U16, OFFSET_SQID, (short) v); return this; }
    public int cid() { return Short.toUnsignedInt(segment.get(U16, OFFSET_CID)); }
    public ErrorLogEntry cid(int v) { segment.set(U16, OFFSET_CID, (short) v); return this; }

    /** The 15-bit status field (as in CQE DW3 bits 31:17), without the phase tag in bit 0. */
    public int statusField() { return Short.toUnsignedInt(segment.get(U16, OFFSET_STATUS)) >>> 1; }
    public ErrorLogEntry statusField(int field) {
        segment.set(U16, OFFSET_STATUS, (short) ((field & 0x7FFF) << 1));
        return this;
    }

    /** Raw parameter error location: byte offset in the command in bits 7:0, bit in bits 10:8, FFFFh for none. */
    public int parameterErrorLocation() { return Short.toUnsignedInt(segment.get(U16, OFFSET_PARAMETER_ERROR_LOCATION)); }
    public ErrorLogEntry parameterErrorLocation(int v) {
        segment.set(U16, OFFSET_PARAMETER_ERROR_LOCATION, (short) v);
        return this;
    }

    /** Sets the location as Linux {@code nvmet_set_error()} does from {@code req->error_loc}: the field's offset. */
    public ErrorLogEntry parameterErrorLocation(int byteOffset, int bit) {
        if (byteOffset < 0 || byteOffset > 0xFF || bit < 0 || bit > 7) {
            throw new IllegalArgumentException("error location byte " + byteOffset + " bit " + bit + " out of range");
        }
        return parameterErrorLocation(byteOffset | bit << 8);
    }

    public long lba() { return segment.get(U64, OFFSET_LBA); }
    public ErrorLogEntry lba(long v) { segment.set(U64, OFFSET_LBA, v); return this; }
    public long nsid() { return Integer.toUnsignedLong(segment.get(U32, OFFSET_NSID)); }
    public ErrorLogEntry nsid(long v) { segment.set(U32, OFFSET_NSID, (int) v); return this; }
    public int vendorSpecificLogPage() { return Byte.toUnsignedInt(segment.get(JAVA_BYTE, OFFSET_VENDOR_SPECIFIC)); }
    public int trtype() { return Byte.toUnsignedInt(segment.get(JAVA_BYTE, OFFSET_TRTYPE)); }
    public ErrorLogEntry trtype(int v) { segment.set(JAVA_BYTE, OFFSET_TRTYPE, (byte) v); return this; }
    public long commandSpecific() { return segment.get(U64, OFFSET_COMMAND_SPECIFIC); }
    public ErrorLogEntry commandSpecific(long v) { segment.set(U64, OFFSET_COMMAND_SPECIFIC, v); return this; }
    public int trtypeSpecific() { return Short.toUnsignedInt(segment.get(U16, OFFSET_TRTYPE_SPECIFIC)); }
    public ErrorLogEntry trtypeSpecific(int v) { segment.set(U16, OFFSET_TRTYPE_SPECIFIC, (short) v); return this; }

    public boolean isUnused() {
        return errorCount() == 0;
    }

    @Override
    public String toString() {
        return String.format("ErrorLogEntry[count=%s sqid=%d cid=%d status=%04xh loc=%04xh lba=%s nsid=%d trtype=%d]",
                Long.toUnsignedString(errorCount()), sqid(), cid(), statusField(), parameterErrorLocation(),
                Long.toUnsignedString(lba()), nsid(), trtype());
    }
}
