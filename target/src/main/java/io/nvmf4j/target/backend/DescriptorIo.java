package io.nvmf4j.target.backend;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Positional I/O on a raw descriptor opened through {@link LinuxCalls#open}, shared by the file and block-device
 * backends. With {@code O_DIRECT} the kernel wants the buffer address, the length and the file offset aligned to the
 * device's logical block size; a destination that is not native or not aligned goes through an aligned bounce
 * buffer (the transport's registered buffers normally are aligned, so the data path copies nothing). Short transfers
 * are continued, like the kernel's own iov_iter loop in nvmet_file_submit_bvec().
 */
final class DescriptorIo {

    /** Alignment of bounce buffers: a page, enough for every logical block size up to 4096. */
    static final long ALIGNMENT = 4096;

    private DescriptorIo() {
    }

    static boolean aligned(MemorySegment segment, boolean direct) {
        return !direct || (segment.isNative() && segment.address() % ALIGNMENT == 0 && segment.byteSize() % 512 == 0);
    }

    static void readFully(int fd, MemorySegment destination, long offset, boolean direct)
            throws LinuxCalls.ErrnoException, BackendException {
        if (destination.isNative() && aligned(destination, direct)) {
            readLoop(fd, destination, offset);
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bounce = arena.allocate(destination.byteSize(), ALIGNMENT);
            readLoop(fd, bounce, offset);
            destination.copyFrom(bounce);
        }
    }

    static void writeFully(int fd, MemorySegment source, long offset, boolean direct)
            throws LinuxCalls.ErrnoException, BackendException {
        if (source.isNative() && aligned(source, direct)) {
            writeLoop(fd, source, offset);
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bounce = arena.allocate(source.byteSize(), ALIGNMENT);
            bounce.copyFrom(source);
            writeLoop(fd, bounce, offset);
        }
    }

    private static void readLoop(int fd, MemorySegment buffer, long offset)
            throws LinuxCalls.ErrnoException, BackendException {
        long done = 0;
        while (done < buffer.byteSize()) {
            // the whole buffer on the first (usually only) call: no slice per command
            long n = LinuxCalls.pread(fd, done == 0 ? buffer : buffer.asSlice(done), offset + done);
            if (n == 0) {
                throw new BackendException(BackendException.Kind.IO_ERROR,
                        "unexpected end of backing store at byte " + (offset + done));
            }
            done += n;
        }
    }

    private static void writeLoop(int fd, MemorySegment buffer, long offset)
            throws LinuxCalls.ErrnoException, BackendException {
        long done = 0;
        while (done < buffer.byteSize()) {
            long n = LinuxCalls.pwrite(fd, done == 0 ? buffer : buffer.asSlice(done), offset + done);
            if (n == 0) {
                throw new BackendException(BackendException.Kind.IO_ERROR,
                        "backing store accepted no bytes at byte " + (offset + done));
            }
            done += n;
        }
    }

    static BackendException failure(String what, LinuxCalls.ErrnoException e) {
        return new BackendException(BackendException.kindOfErrno(e.errno()), e.errno(), what + ": " + e.getMessage(), e);
    }
}
