package io.nvmf4j.protocol.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Firmware Slot Information (03h) and Commands Supported and Effects (05h) against the literal layouts of Linux
 * {@code include/linux/nvme.h}: {@code struct nvme_fw_slot_info_log} (afi u8, rsvd1[7], frs[7] __le64, rsvd64[448])
 * and {@code struct nvme_effects_log} (acs[256] __le32, iocs[256] __le32, resv[2048]).
 */
class FirmwareAndEffectsLogTest {

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void firmwareSlotLogIs512BytesWithAfiAndSevenRevisions() {
        FirmwareSlotLog log = FirmwareSlotLog.allocate().activeFirmwareInfo(1, 0).revision(1, "6.1.0");
        byte[] expected = new byte[512];
        expected[0] = 0x01;                                   // afi: running from slot 1, no next-reset slot
        byte[] frs1 = HexFormat.of().parseHex("362e312e30202020"); // "6.1.0   " at frs[0], byte 8
        System.arraycopy(frs1, 0, expected, 8, 8);
        assertArrayEquals(expected, bytes(log.segment()));
        assertEquals(1, log.activeSlot());
        assertEquals(0, log.nextResetSlot());
        assertEquals("6.1.0", log.revision(1));
        assertEquals("", log.revision(7));
    }

    @Test
    void firmwareSlotLogPutsTheNextResetSlotInAfiBits6To4AndFrs7AtByte56() {
        FirmwareSlotLog log = FirmwareSlotLog.allocate().activeFirmwareInfo(2, 7).revision(7, "ABCDEFGH");
        byte[] b = bytes(log.segment());
        assertEquals(0x72, b[0]);
        assertEquals("4142434445464748", HexFormat.of().formatHex(b, 56, 64));
        assertThrows(IllegalArgumentException.class, () -> log.revision(8, "x"));
        assertThrows(IllegalArgumentException.class, () -> log.activeFirmwareInfo(0, 0));
        assertThrows(MalformedStructureException.class, () -> FirmwareSlotLog.wrap(MemorySegment.ofArray(new byte[511])));
    }
}
