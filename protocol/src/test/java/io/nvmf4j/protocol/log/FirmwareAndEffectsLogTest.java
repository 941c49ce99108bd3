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
        assertThrows(MalformedStructureException.class,
                () -> FirmwareSlotLog.wrap(MemorySegment.ofArray(new byte[511])));
    }

    @Test
    void effectsLogHasAdminEntriesFromByte0AndIoEntriesFromByte1024() {
        CommandEffectsLog log = CommandEffectsLog.allocate()
                .admin(0x06, CommandEffectsLog.CSUPP)                          // Identify
                .admin(0x18, CommandEffectsLog.CSUPP)                          // Keep Alive
                .io(0x01, CommandEffectsLog.CSUPP | CommandEffectsLog.LBCC)    // Write
                .io(0xFF, 0x0008_0001);
        byte[] b = bytes(log.segment());
        assertEquals(4096, b.length);
        assertEquals("01000000", HexFormat.of().formatHex(b, 0x06 * 4, 0x06 * 4 + 4));
        assertEquals("01000000", HexFormat.of().formatHex(b, 0x18 * 4, 0x18 * 4 + 4));
        assertEquals("03000000", HexFormat.of().formatHex(b, 1024 + 4, 1024 + 8));
        assertEquals("01000800", HexFormat.of().formatHex(b, 2044, 2048));   // iocs[255], CSUPP | UUID selection
        int set = 0;
        for (byte x : b) {
            set += x != 0 ? 1 : 0;
        }
        assertEquals(5, set, "nothing else written");
        assertEquals(CommandEffectsLog.CSUPP, log.admin(0x06));
        assertEquals(0, log.admin(0x02));
        assertEquals(3, log.io(0x01));
        assertEquals(0x1F, CommandEffectsLog.CSUPP | CommandEffectsLog.LBCC | CommandEffectsLog.NCC
                | CommandEffectsLog.NIC | CommandEffectsLog.CCC, "NVME_CMD_EFFECTS_CSUPP..CCC are bits 0-4");
        assertThrows(IllegalArgumentException.class, () -> log.io(256, 1));
        assertThrows(MalformedStructureException.class,
                () -> CommandEffectsLog.wrap(MemorySegment.ofArray(new byte[4095])));
    }
}
