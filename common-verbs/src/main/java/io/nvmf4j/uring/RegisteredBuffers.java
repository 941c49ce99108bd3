package io.nvmf4j.uring;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The buffers of an {@code IORING_REGISTER_BUFFERS}: the {@code struct iovec} array the call takes and, after it,
 * the address ranges by index, so a caller can find which registered buffer holds a segment without allocating.
 */
final class RegisteredBuffers {
    /** {@code struct iovec { void *iov_base; size_t iov_len; }} on a 64-bit kernel. */
    private static final long IOVEC_SIZE = 16;

    static final RegisteredBuffers NONE = new RegisteredBuffers(new long[0], new long[0]);

    private final long[] starts;
    private final long[] ends;

    private RegisteredBuffers(long[] starts, long[] ends) {
        this.starts = starts;
        this.ends = ends;
    }

    /** The ranges of {@code buffers}; each must be a non-empty native segment (the kernel pins its pages). */
    static RegisteredBuffers of(MemorySegment... buffers) {
        long[] starts = new long[buffers.length];
        long[] ends = new long[buffers.length];
        for (int i = 0; i < buffers.length; i++) {
            MemorySegment b = buffers[i];
            if (!b.isNative() || b.byteSize() == 0) {
                throw new IllegalArgumentException("buffer " + i + " is not a non-empty native segment: " + b);
            }
            starts[i] = b.address();
            ends[i] = b.address() + b.byteSize();
        }
        return new RegisteredBuffers(starts, ends);
    }

    int count() {
        return starts.length;
    }

    /** The {@code struct iovec[count()]} for {@code io_uring_register(2)}; the kernel copies it during the call. */
    MemorySegment iovecs(Arena arena) {
        MemorySegment iov = arena.allocate(IOVEC_SIZE * starts.length, 8);
        for (int i = 0; i < starts.length; i++) {
            iov.set(JAVA_LONG, i * IOVEC_SIZE, starts[i]);
            iov.set(JAVA_LONG, i * IOVEC_SIZE + 8, ends[i] - starts[i]);
        }
        return iov;
    }

    /** The index of the first buffer holding all of {@code segment}, or -1. */
    int indexOf(MemorySegment segment) {
        if (!segment.isNative()) {
            return -1;
        }
        long start = segment.address();
        long end = start + segment.byteSize();
        for (int i = 0; i < starts.length; i++) {
            if (start >= starts[i] && end <= ends[i]) {
                return i;
            }
        }
        return -1;
    }
}
