package io.nvmf4j.cli.mount.fuse;

import io.nvmf4j.cli.mount.fuse.ffi.fuse_file_info;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The bitfields of {@code struct fuse_file_info} that jextract skips ("bitfields are not supported"), set by hand.
 *
 * <p>libfuse 3.14 {@code fuse_common.h} declares, right after {@code int flags} (offset 0), one {@code unsigned int}
 * storage unit of bitfields: {@code writepage:1, direct_io:1, keep_cache:1, flush:1, nonseekable:1,
 * flock_release:1, cache_readdir:1, noflush:1, padding:24}, then {@code padding2:32}. The x86-64 System V ABI
 * allocates bitfields from the least significant bit of their storage unit, so the storage unit is the 32-bit
 * word at offset 4 and {@code direct_io} is its bit 1. {@code FuseLayoutTest} checks both against gcc.
 */
public final class FileInfoBits {

    /** Offset of the bitfield storage unit: right after {@code int flags} (the generated layout pads 12 bytes). */
    public static final long BITS_OFFSET = 4;
    public static final int WRITEPAGE = 0;
    public static final int DIRECT_IO = 1;
    public static final int KEEP_CACHE = 2;
    public static final int FLUSH = 3;
    public static final int NONSEEKABLE = 4;
    public static final int FLOCK_RELEASE = 5;
    public static final int CACHE_READDIR = 6;
    public static final int NOFLUSH = 7;

    private static final ValueLayout.OfInt WORD = ValueLayout.JAVA_INT_UNALIGNED;

    private FileInfoBits() {
    }

    public static boolean get(MemorySegment fileInfo, int bit) {
        return (words(fileInfo).get(WORD, BITS_OFFSET) >>> bit & 1) != 0;
    }

    public static void set(MemorySegment fileInfo, int bit, boolean value) {
        MemorySegment fi = words(fileInfo);
        int word = fi.get(WORD, BITS_OFFSET);
        fi.set(WORD, BITS_OFFSET, value ? word | (1 << bit) : word & ~(1 << bit));
    }

    /** The pointer libfuse passed, widened to the struct's size (upcall pointers arrive with size 0). */
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    private static MemorySegment words(MemorySegment fileInfo) {
        return fileInfo.byteSize() >= fuse_file_info.sizeof() ? fileInfo : fileInfo.reinterpret(fuse_file_info.sizeof());
    }
}
