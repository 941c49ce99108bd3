package io.nvmf4j.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** Every block carries its LBA, the run and a generation; each kind of corruption is caught. */
class VerifyPatternTest {

    private static MemorySegment block(Arena arena, long lba, long gen) {
        MemorySegment s = arena.allocate(4096);
        VerifyPattern.fill(s, 0, 4096, lba, 0xABCDL, gen);
        return s;
    }

    @Test
    void theHeaderIsLaidOutAsDocumented() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = block(a, 1234, 5);
            assertEquals("NVMF4JPF", new String(s.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE),
                    java.nio.charset.StandardCharsets.US_ASCII));
            assertEquals(1234, s.get(VerifyPattern.WORD, 8));
            assertEquals(0xABCDL, s.get(VerifyPattern.WORD, 16));
            assertEquals(5, s.get(VerifyPattern.WORD, 24));
        }
    }

    @Test
    void anIntactBlockPasses() {
        try (Arena a = Arena.ofConfined()) {
            assertEquals(-1, VerifyPattern.check(block(a, 77, 3), 0, 4096, 77, 0xABCDL, 3));
        }
    }

    @Test
    void aMisdirectedBlockFailsOnTheLba() {
        try (Arena a = Arena.ofConfined()) {
            assertEquals(8, VerifyPattern.check(block(a, 78, 3), 0, 4096, 77, 0xABCDL, 3));
        }
    }

    @Test
    void aLostWriteFailsOnTheGeneration() {
        try (Arena a = Arena.ofConfined()) {
            assertEquals(24, VerifyPattern.check(block(a, 77, 2), 0, 4096, 77, 0xABCDL, 3));
        }
    }

    @Test
    void dataOfAnotherRunFailsOnTheRunId() {
        try (Arena a = Arena.ofConfined()) {
            assertEquals(16, VerifyPattern.check(block(a, 77, 3), 0, 4096, 77, 0x1234L, 3));
        }
    }

    @Test
    void aSingleFlippedBitInTheBodyIsFoundAtItsWord() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = block(a, 77, 3);
            s.set(ValueLayout.JAVA_BYTE, 4000, (byte) (s.get(ValueLayout.JAVA_BYTE, 4000) ^ 0x10));
            assertEquals(4000, VerifyPattern.check(s, 0, 4096, 77, 0xABCDL, 3));
        }
    }

    @Test
    void zeroesAreNoPattern() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(512);
            assertEquals(0, VerifyPattern.check(s, 0, 512, 0, 1, 1));
            assertEquals("no perf pattern (first word 0x0000000000000000)", VerifyPattern.describeFound(s, 0));
        }
    }
}
