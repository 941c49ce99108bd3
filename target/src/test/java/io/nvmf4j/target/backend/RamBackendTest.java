package io.nvmf4j.target.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

class RamBackendTest {

    @Test
    void writeReadDeallocateAndWriteZeroesOnRam() throws Exception {
        try (RamBackend ram = RamBackend.allocate(64 * 1024 + 100, 512)) {
            assertEquals(128, ram.blockCount());
            byte[] data = new byte[1024];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i * 31 + 7);
            }
            ram.write(127 - 1, MemorySegment.ofArray(data), true);
            byte[] back = new byte[1024];
            ram.read(126, MemorySegment.ofArray(back));
            assertEquals(-1, MemorySegment.ofArray(back).mismatch(MemorySegment.ofArray(data)));

            ram.deallocate(127, 1);
            ram.read(126, MemorySegment.ofArray(back));
            assertEquals(data[0], back[0]);
            assertEquals(0, back[512]);
            ram.writeZeroes(126, 1);
            ram.read(126, MemorySegment.ofArray(back));
            assertEquals(-1, MemorySegment.ofArray(back).mismatch(MemorySegment.ofArray(new byte[1024])));

            BackendException e = assertThrows(BackendException.class,
                    () -> ram.read(127, MemorySegment.ofArray(new byte[1024])));
            assertEquals(BackendException.Kind.OUT_OF_RANGE, e.kind());
            assertThrows(BackendException.class, () -> ram.write(0, MemorySegment.ofArray(new byte[100]), false));
        }
        assertThrows(IllegalArgumentException.class, () -> RamBackend.allocate(100, 512));
        assertThrows(IllegalArgumentException.class, () -> RamBackend.allocate(1 << 20, 2048));
    }

    @Test
    void aSizeBeyondTheMachinesFreeMemoryIsRefusedBeforeAnythingIsAllocated() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RamBackend.allocate(10L << 40, 512));
        assertTrue(e.getMessage().startsWith("RAM namespace of 10 TiB (10995116277760 bytes) does not fit: "),
                e.getMessage());
        assertTrue(e.getMessage().endsWith(" of memory available (MemAvailable in /proc/meminfo)"), e.getMessage());
    }

    @Test
    void memAvailableIsReadInBytesAndSizesAreNamedInBinaryUnits() {
        assertEquals(22_340_212L * 1024, MemoryInfo.availableBytes(List.of("MemTotal:       24683768 kB",
                "MemFree:        21247816 kB", "MemAvailable:   22340212 kB")));
        assertEquals(-1, MemoryInfo.availableBytes(List.of("MemTotal:       24683768 kB")));
        assertEquals("10 TiB", MemoryInfo.human(10L << 40));
        assertEquals("1.5 GiB", MemoryInfo.human(3L << 29));
        assertEquals("512 bytes", MemoryInfo.human(512));
    }
}
