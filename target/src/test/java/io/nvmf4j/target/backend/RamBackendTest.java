package io.nvmf4j.target.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
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
}
