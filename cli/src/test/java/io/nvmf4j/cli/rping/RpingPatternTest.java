package io.nvmf4j.cli.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Vectors written out by hand from rping_test_client(): snprintf("rdma-ping-%d: "), then characters
 * from 'A' + ping % 58 upwards, 'z' wraps to 'A', and buf[size - 1] = 0.
 */
class RpingPatternTest {

    private static String filled(int ping, int size) {
        MemorySegment buffer = MemorySegment.ofArray(new byte[size]);
        RpingPattern.fill(buffer, size, ping);
        return new String(buffer.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
    }

    @Test
    void pingZeroOfTheSmallestSizeIsPrefixThenAscendingLettersThenNul() {
        assertEquals("rdma-ping-0: ABCDEFGHIJKL\0", filled(0, 26));
    }

    @Test
    void eachPingStartsOneCharacterLaterAndWrapsAfterLowercaseZ() {
        assertEquals("rdma-ping-1: BCDEFGHIJKLM\0", filled(1, 26));
        assertEquals("rdma-ping-57: zABCDEFGHIJ\0", filled(57, 26));
        assertEquals("rdma-ping-58: ABCDEFGHIJK\0", filled(58, 26));
    }

    @Test
    void charactersRunFromUppercaseAThroughPunctuationToLowercaseZAndAround() {
        String expected = "rdma-ping-0: " + "ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz"
                + "ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\" + "\0";
        assertEquals(100, expected.length());
        assertEquals(expected, filled(0, 100));
    }

    @Test
    void firstMismatchFindsTheCorruptedByteAndNoneInAnIntactPing() {
        MemorySegment buffer = MemorySegment.ofArray(new byte[4096]);
        RpingPattern.fill(buffer, 4096, 9);
        assertEquals(-1, RpingPattern.firstMismatch(buffer, 4096, 9));
        assertEquals(10, RpingPattern.firstMismatch(buffer, 4096, 8), "\"rdma-ping-9\" differs from ping 8 at the digit");
        buffer.set(ValueLayout.JAVA_BYTE, 3000, (byte) '#');
        assertEquals(3000, RpingPattern.firstMismatch(buffer, 4096, 9));
    }

    @Test
    void textIsTheCStringAsRpingPrintsIt() {
        MemorySegment buffer = MemorySegment.ofArray(new byte[64]);
        RpingPattern.fill(buffer, 26, 0);
        assertEquals("rdma-ping-0: ABCDEFGHIJKL", RpingPattern.text(buffer, 64));
        assertEquals(25, RpingPattern.cStringLength(buffer, 64));
    }
}
