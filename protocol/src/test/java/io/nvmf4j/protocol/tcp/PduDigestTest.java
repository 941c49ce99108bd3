package io.nvmf4j.protocol.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.protocol.Hex;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The digest is iSCSI's CRC32C: the vectors of RFC 3720, B.4, stored little-endian as Linux stores it. */
class PduDigestTest {

    private static int of(byte[] data) {
        return PduDigest.compute(MemorySegment.ofArray(data), 0, data.length);
    }

    @Test
    void thirtyTwoZeroBytes() {
        assertEquals(0x8A9136AA, of(new byte[32]));
    }

    @Test
    void thirtyTwoBytesOfOnes() {
        byte[] b = new byte[32];
        Arrays.fill(b, (byte) 0xff);
        assertEquals(0x62A8AB43, of(b));
    }

    @Test
    void thirtyTwoIncrementingBytes() {
        byte[] b = new byte[32];
        for (int i = 0; i < 32; i++) {
            b[i] = (byte) i;
        }
        assertEquals(0x46DD794E, of(b));
    }

    @Test
    void theDigestIsStoredLittleEndianAfterTheBytesItCovers() {
        MemorySegment s = MemorySegment.ofArray(new byte[36]);
        PduDigest.write(s, 0, 32);
        assertEquals(Hex.norm("aa36918a"), Hex.of(s.asSlice(32, 4)));
    }

    @Test
    void nativeMemoryAndSegmentsOverOtherArraysGiveTheSameDigest() {
        byte[] b = new byte[40];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i * 7);
        }
        long[] longs = new long[5];
        MemorySegment overLongs = MemorySegment.ofArray(longs);
        overLongs.copyFrom(MemorySegment.ofArray(b));
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment nativeCopy = arena.allocate(40).copyFrom(MemorySegment.ofArray(b));
            int expected = PduDigest.compute(MemorySegment.ofArray(b), 3, 32);
            assertEquals(expected, PduDigest.compute(nativeCopy, 3, 32));
            assertEquals(expected, PduDigest.compute(overLongs, 3, 32));
            assertEquals(expected, PduDigest.compute(nativeCopy.asReadOnly(), 3, 32));
        }
    }

    @Test
    void anInstanceDigestsPartOfABufferAndLeavesItsPositionAndLimit() {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocateDirect(64);
        for (int i = 0; i < 64; i++) {
            b.put(i, (byte) (i - 5));
        }
        b.limit(50).position(7);
        PduDigest digest = new PduDigest();
        int expected = PduDigest.compute(MemorySegment.ofBuffer(b.duplicate().clear()), 5, 32);
        assertEquals(expected, digest.compute(b, 5, 32));
        assertEquals(expected, digest.compute(b, 5, 32), "reset between PDUs");
        assertEquals(7, b.position());
        assertEquals(50, b.limit());
        byte[] zeros = new byte[32];
        assertEquals(0x8A9136AA, digest.compute(java.nio.ByteBuffer.wrap(zeros), 0, 32), "RFC 3720 B.4");
    }
}
