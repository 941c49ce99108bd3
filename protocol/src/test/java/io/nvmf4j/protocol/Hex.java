package io.nvmf4j.protocol;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.Locale;

/** Test helper: byte vectors written out by hand as hex, whitespace ignored. */
public final class Hex {

    private Hex() {
    }

    public static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex.replaceAll("\\s+", ""));
    }

    public static MemorySegment segment(String hex) {
        return MemorySegment.ofArray(bytes(hex));
    }

    /** {@code count} zero bytes written as hex, for padding out vectors. */
    public static String zeros(int count) {
        return "00".repeat(count);
    }

    public static String of(MemorySegment segment) {
        return HexFormat.of().formatHex(segment.toArray(ValueLayout.JAVA_BYTE));
    }

    public static String of(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    /** Normalises a hand-written vector for comparison with {@link #of}. */
    public static String norm(String hex) {
        return hex.replaceAll("\\s+", "").toLowerCase(Locale.ROOT);
    }
}
