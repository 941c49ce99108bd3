package io.nvmf4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/** Deterministic test data: the same seed always gives the same bytes, different seeds differ. */
public final class Patterns {
    private Patterns() {
    }

    public static byte[] bytes(long seed, int length) {
        byte[] data = new byte[length];
        new SplittableRandom(seed).nextBytes(data);
        return data;
    }

    public static void fill(MemorySegment segment, long seed) {
        MemorySegment.copy(MemorySegment.ofArray(bytes(seed, Math.toIntExact(segment.byteSize()))), 0, segment, 0,
                segment.byteSize());
    }

    /** Fails at the first byte of {@code actual} that differs from {@code expected}. */
    public static void assertSameBytes(byte[] expected, MemorySegment actual, String what) {
        assertSameBytes(MemorySegment.ofArray(expected), actual, what);
    }

    public static void assertSameBytes(MemorySegment expected, MemorySegment actual, String what) {
        // compare a snapshot: memory a provider is still writing must not make the report contradict itself
        actual = MemorySegment.ofArray(actual.toArray(ValueLayout.JAVA_BYTE));
        if (expected.byteSize() != actual.byteSize()) {
            fail(what + ": " + actual.byteSize() + " bytes, expected " + expected.byteSize());
        }
        long at = expected.mismatch(actual);
        if (at >= 0) {
            fail(what + ": first difference at byte " + at + " of " + expected.byteSize() + " (expected 0x"
                    + Integer.toHexString(expected.get(ValueLayout.JAVA_BYTE, at) & 0xff) + ", got 0x"
                    + Integer.toHexString(actual.get(ValueLayout.JAVA_BYTE, at) & 0xff) + ")");
        }
    }
}
