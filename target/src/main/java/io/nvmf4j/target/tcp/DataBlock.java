package io.nvmf4j.target.tcp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One data buffer, allocated once and reused: its memory, the ByteBuffer view the socket reads into and writes from,
 * and the slice of the last length a command used (the next command of the same length reuses it, so a steady
 * stream of equal-sized I/O takes no new slice object). Used by one request at a time, on its poll group's thread.
 */
final class DataBlock {

    /** The block's own arena (a pool block, freed when the pool shrinks), or null for memory owned elsewhere. */
    final Arena arena;
    final MemorySegment memory;
    final ByteBuffer view;
    /** The {@link TcpBufferPool} size class it belongs to, or -1 for a request's own in-capsule buffer. */
    final int sizeClass;
    private MemorySegment slice;

    DataBlock(Arena arena, MemorySegment memory, int sizeClass) {
        this.arena = arena;
        this.memory = memory;
        this.view = memory.asByteBuffer();
        this.sizeClass = sizeClass;
        this.slice = memory;
    }

    /** The first {@code length} bytes. */
    MemorySegment slice(long length) {
        if (slice.byteSize() != length) {
            slice = memory.asSlice(0, length);
        }
        return slice;
    }

    /** The view set to bytes {@code from}..{@code to}. */
    ByteBuffer window(long from, long to) {
        view.limit((int) to).position((int) from);
        return view;
    }
}
