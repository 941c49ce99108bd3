package io.nvmf4j.protocol.log;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.AsciiField;
import java.lang.foreign.MemorySegment;

/**
 * The 512-byte Firmware Slot Information log page (03h; NVMe Base 2.0, 5.16.1.4, Figure 208): the Active Firmware
 * Info byte (AFI: bits 2:0 the slot the running firmware came from, bits 6:4 the slot activated at the next
 * reset, 0 = none) and the revision in each of the seven slots (FRS1-FRS7, 8 ASCII bytes each, all zeroes for an
 * empty or unsupported slot).
 *
 * <p>Linux: {@code struct nvme_fw_slot_info_log}; SPDK: {@code struct spdk_nvme_firmware_page}.
 */
public final class FirmwareSlotLog {

    public static final int SIZE = 512;
    public static final int OFFSET_AFI = 0;
    /** FRS1; FRSn is at {@code OFFSET_FRS + 8 * (n - 1)}. */
    public static final int OFFSET_FRS = 8;
    public static final int REVISION_LENGTH = 8;
    public static final int SLOTS = 7;

    private final MemorySegment segment;

    private FirmwareSlotLog(MemorySegment segment) {
        this.segment = segment;
    }

    public static FirmwareSlotLog wrap(MemorySegment segment) {
        if (segment.byteSize() < SIZE) {
            throw new MalformedStructureException(
                    "firmware slot log needs " + SIZE + " bytes, got " + segment.byteSize());
        }
        return new FirmwareSlotLog(segment.asSlice(0, SIZE));
    }

    public static FirmwareSlotLog allocate() {
        return new FirmwareSlotLog(MemorySegment.ofArray(new byte[SIZE]));
    }

    public MemorySegment segment() {
        return segment;
    }

    /** AFI bits 2:0: the slot the running firmware was loaded from (1-7). */
    public int activeSlot() {
        return Wire.u8(segment, OFFSET_AFI) & 0x7;
    }

    /** AFI bits 6:4: the slot to be activated at the next reset, 0 when none is set. */
    public int nextResetSlot() {
        return Wire.u8(segment, OFFSET_AFI) >>> 4 & 0x7;
    }

    public FirmwareSlotLog activeFirmwareInfo(int activeSlot, int nextResetSlot) {
        checkSlot(activeSlot, 1);
        checkSlot(nextResetSlot, 0);
        Wire.u8(segment, OFFSET_AFI, nextResetSlot << 4 | activeSlot);
        return this;
    }

    /** FRSn as text, trailing spaces and NULs removed; empty for an empty slot. */
    public String revision(int slot) {
        checkSlot(slot, 1);
        return AsciiField.read(segment, OFFSET_FRS + (long) REVISION_LENGTH * (slot - 1), REVISION_LENGTH);
    }

    /** FRSn: printable ASCII, at most 8 bytes, space-padded as Identify Controller FR. */
    public FirmwareSlotLog revision(int slot, String revision) {
        checkSlot(slot, 1);
        AsciiField.writeSpacePadded(segment, OFFSET_FRS + (long) REVISION_LENGTH * (slot - 1), REVISION_LENGTH,
                "FRS" + slot, revision);
        return this;
    }

    private static void checkSlot(int slot, int min) {
        if (slot < min || slot > SLOTS) {
            throw new IllegalArgumentException("firmware slot " + slot + " is not " + min + ".." + SLOTS);
        }
    }
}
