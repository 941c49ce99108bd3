package io.nvmf4j.protocol.admin;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.math.BigInteger;

/**
 * 128-bit little-endian unsigned counters (Identify TNVMCAP/UNVMCAP, SMART data units and command counts). Java has
 * no unsigned 128-bit type, so they surface as non-negative {@link BigInteger}s.
 */
public final class Uint128 {

    public static final int SIZE = 16;
    private static final BigInteger LIMIT = BigInteger.ONE.shiftLeft(128);

    private Uint128() {
    }

    public static BigInteger read(MemorySegment segment, long offset) {
        byte[] bigEndian = new byte[SIZE + 1]; // leading zero byte keeps the value non-negative
        for (int i = 0; i < SIZE; i++) {
            bigEndian[SIZE - i] = segment.get(JAVA_BYTE, offset + i);
        }
        return new BigInteger(bigEndian);
    }

    public static void write(MemorySegment segment, long offset, BigInteger value) {
        if (value.signum() < 0 || value.compareTo(LIMIT) >= 0) {
            throw new IllegalArgumentException(value + " does not fit in an unsigned 128-bit field");
        }
        byte[] bigEndian = value.toByteArray();
        for (int i = 0; i < SIZE; i++) {
            int src = bigEndian.length - 1 - i;
            segment.set(JAVA_BYTE, offset + i, src >= 0 ? bigEndian[src] : 0);
        }
    }
}
