package io.nvmf4j.target.tcp;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One data buffer, allocated once and reused: the direct ByteBuffer the socket reads into and writes from, its
 * memory as a segment for the core and the digests, and the slice of the last length a command used (the next
 * command of the same length reuses it, so a steady stream of equal-sized I/O takes no new slice object). Used by
 * one request at a time, on its poll group's thread.
 *
 * <p>Socket-facing memory is a plain direct ByteBuffer, not an arena's segment: NIO acquires the session of a
 * segment-backed buffer for each read and write and allocates a releaser each time, which the data path must not.
 */
final class DataBlock {

    final ByteBuffer view;
    final MemorySegment memory;
    /** The {@link TcpBufferPool} size class it belongs to, or -1 for a request's own in-capsule buffer. */
    final int sizeClass;
    private MemorySegment slice;

    DataBlock(ByteBuffer view, int sizeClass) {
        this.view = view;
        this.memory = MemorySegment.ofBuffer(view);
        this.sizeClass = sizeClass;
        this.slice = memory;
    }

    /** {@code size} bytes of direct memory starting at a multiple of {@code alignment}, freed when unreachable. */
    static ByteBuffer direct(long size, int alignment) {
        return ByteBuffer.allocateDirect(Math.toIntExact(size + alignment)).alignedSlice(alignment)
                .limit(Math.toIntExact(size)).slice();
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
