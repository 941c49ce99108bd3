package io.nvmf4j.cli.perf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The data {@code perf --verify} writes, one self-describing block at a time, so that any read can be checked on
 * its own: a wrong LBA (misdirected I/O), a stale generation (a lost write) or a torn block each show up.
 *
 * <pre>
 *  0   magic "NVMF4JPF"
 *  8   LBA of this block
 *  16  run id (random per run: data of an earlier run never passes)
 *  24  generation: how many times this run wrote the block's I/O unit
 *  32  words derived from (LBA, run id, generation), to the end of the block
 * </pre>
 *
 * Everything is written and checked in place in the registered buffer: nothing is allocated per I/O.
 */
public final class VerifyPattern {

    public static final long MAGIC = 0x4650_4A34_464D_564EL; // "NVMF4JPF" little-endian
    static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final int HEADER = 32;

    private VerifyPattern() {
    }

    /** Fills {@code blockSize} bytes at {@code offset} with the pattern of block {@code lba}. */
    public static void fill(MemorySegment s, long offset, int blockSize, long lba, long runId, long generation) {
        s.set(WORD, offset, MAGIC);
        s.set(WORD, offset + 8, lba);
        s.set(WORD, offset + 16, runId);
        s.set(WORD, offset + 24, generation);
        long x = seed(lba, runId, generation);
        for (long at = HEADER; at + 8 <= blockSize; at += 8) {
            x += 0x9E37_79B9_7F4A_7C15L;
            s.set(WORD, offset + at, mix(x));
        }
    }

    /**
     * Checks one block; returns -1 when it is exactly what {@link #fill} wrote, otherwise the byte offset within the
     * block of the first difference (8-byte granularity).
     */
    public static int check(MemorySegment s, long offset, int blockSize, long lba, long runId, long generation) {
        if (s.get(WORD, offset) != MAGIC) {
            return 0;
        }
        if (s.get(WORD, offset + 8) != lba) {
            return 8;
        }
        if (s.get(WORD, offset + 16) != runId) {
            return 16;
        }
        if (s.get(WORD, offset + 24) != generation) {
            return 24;
        }
        long x = seed(lba, runId, generation);
        for (long at = HEADER; at + 8 <= blockSize; at += 8) {
            x += 0x9E37_79B9_7F4A_7C15L;
            if (s.get(WORD, offset + at) != mix(x)) {
                return (int) at;
            }
        }
        return -1;
    }

    /** What a block that failed {@link #check} says about itself, for the error line. */
    public static String describeFound(MemorySegment s, long offset) {
        long magic = s.get(WORD, offset);
        if (magic != MAGIC) {
            return String.format("no perf pattern (first word 0x%016x)", magic);
        }
        return "LBA " + s.get(WORD, offset + 8) + ", run " + Long.toHexString(s.get(WORD, offset + 16))
                + ", generation " + s.get(WORD, offset + 24);
    }

    private static long seed(long lba, long runId, long generation) {
        return mix(lba * 0xBF58_476D_1CE4_E5B9L ^ runId ^ generation * 0x94D0_49BB_1331_11EBL);
    }

    /** SplitMix64's finaliser (Steele, Lea, Flood 2014): cheap, and every input bit affects every output bit. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }
}
