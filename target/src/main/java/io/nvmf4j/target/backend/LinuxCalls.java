package io.nvmf4j.target.backend;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The few Linux system calls the file and block-device backends need and Java does not offer: {@code open(2)} with
 * {@code O_DIRECT}, positional I/O on that descriptor, {@code fallocate(2)} and {@code ioctl(2)}. Called through
 * FFM with {@code errno} captured by {@link Linker.Option#captureCallState(String...)}, because the JVM may
 * overwrite the thread's errno between the call and a later {@code __errno_location()} read.
 *
 * <p>Every method returns the raw result, or throws {@link ErrnoException} carrying errno when the call returned -1.
 * Constants are the x86-64 / aarch64 Linux values (asm-generic; {@code O_DIRECT} differs on aarch64, see
 * {@link #O_DIRECT}).
 */
final class LinuxCalls {

    static final int O_RDONLY = 0;
    static final int O_RDWR = 2;
    static final int O_CLOEXEC = 02000000;
    /** {@code O_DIRECT}: 040000 on x86-64, 0200000 on aarch64 (arch/arm64/include/uapi/asm/fcntl.h). */
    static final int O_DIRECT = "aarch64".equals(System.getProperty("os.arch")) ? 0200000 : 040000;

    static final int EIO = 5;
    static final int EAGAIN = 11;
    static final int ENOTTY = 25;
    static final int EINVAL = 22;
    static final int ENOSPC = 28;
    static final int EOPNOTSUPP = 95;
    static final int ESHUTDOWN = 108;
    static final int ETIMEDOUT = 110;
    /** What nvmet's backends see for a range outside the device (BLK_STS_TARGET): LBA Out of Range. */
    static final int EREMOTEIO = 121;

    /** include/uapi/linux/falloc.h */
    static final int FALLOC_FL_KEEP_SIZE = 0x01;
    static final int FALLOC_FL_PUNCH_HOLE = 0x02;
    static final int FALLOC_FL_ZERO_RANGE = 0x10;

    /** include/uapi/linux/fs.h: {@code _IOR(0x12, 114, size_t)}: device size in bytes as u64. */
    static final long BLKGETSIZE64 = 0x80081272L;
    /** {@code _IO(0x12, 104)}: logical sector size as int. */
    static final long BLKSSZGET = 0x1268L;
    /** {@code _IO(0x12, 119)}: discard the byte range {@code uint64_t[2] = {start, length}}. */
    static final long BLKDISCARD = 0x1277L;
    /** {@code _IO(0x12, 127)}: zero the byte range {@code uint64_t[2] = {start, length}}. */
    static final long BLKZEROOUT = 0x127FL;

    /** A system call failed; {@link #errno()} is the value captured right after the call. */
    static final class ErrnoException extends Exception {
        private static final long serialVersionUID = 1L;

        private final int errno;

        ErrnoException(String call, int errno) {
            super(call + " failed: errno " + errno + " (" + describe(errno) + ")");
            this.errno = errno;
        }

        int errno() {
            return errno;
        }
    }

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    private static final MethodHandle OPEN = downcall("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), CAPTURE_ERRNO, Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle PREAD = downcall("pread",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle PWRITE = downcall("pwrite",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle FALLOCATE = downcall("fallocate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle FDATASYNC = downcall("fdatasync", FunctionDescriptor.of(JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle IOCTL = downcall("ioctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), CAPTURE_ERRNO, Linker.Option.firstVariadicArg(2));
    private static final MethodHandle STRERROR = downcall("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    /** Per-thread errno capture area, so positional I/O on the data path allocates nothing per call. */
    private static final ThreadLocal<MemorySegment> CALL_STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    private LinuxCalls() {
    }

    @SuppressWarnings("restricted") // FFM: binds a C function; the module is granted native access
    private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc symbol " + name + " not found"));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    static int open(String path, int flags) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE_LAYOUT);
            int fd = (int) OPEN.invokeExact(state, arena.allocateFrom(path), flags | O_CLOEXEC, 0);
            return check("open(" + path + ")", fd, state);
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static void close(int fd) throws ErrnoException {
        try {
            MemorySegment state = CALL_STATE.get();
            check("close", (int) CLOSE.invokeExact(state, fd), state);
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** One {@code pread(2)} into native memory; returns bytes read (0 at end of file). */
    static long pread(int fd, MemorySegment buffer, long offset) throws ErrnoException {
        try {
            MemorySegment state = CALL_STATE.get();
            long n = (long) PREAD.invokeExact(state, fd, buffer, buffer.byteSize(), offset);
            return check("pread", n, state);
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static long pwrite(int fd, MemorySegment buffer, long offset) throws ErrnoException {
        try {
            MemorySegment state = CALL_STATE.get();
            long n = (long) PWRITE.invokeExact(state, fd, buffer, buffer.byteSize(), offset);
            return check("pwrite", n, state);
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static void fallocate(int fd, int mode, long offset, long length) throws ErrnoException {
        try {
            MemorySegment state = CALL_STATE.get();
            check("fallocate(mode=" + Integer.toHexString(mode) + ")",
                    (int) FALLOCATE.invokeExact(state, fd, mode, offset, length), state);
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static void fdatasync(int fd) throws ErrnoException {
        try {
            MemorySegment state = CALL_STATE.get();
            check("fdatasync", (int) FDATASYNC.invokeExact(state, fd), state);
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code ioctl(fd, request, argument)} where the argument is a pointer to {@code argument}. */
    static int ioctl(int fd, long request, MemorySegment argument) throws ErrnoException {
        try {
            MemorySegment state = CALL_STATE.get();
            int rc = (int) IOCTL.invokeExact(state, fd, request, argument);
            return check("ioctl(" + Long.toHexString(request) + ")", rc, state);
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    static String describe(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    private static int check(String call, int rc, MemorySegment state) throws ErrnoException {
        if (rc == -1) {
            throw new ErrnoException(call, (int) ERRNO.get(state, 0L));
        }
        return rc;
    }

    private static long check(String call, long rc, MemorySegment state) throws ErrnoException {
        if (rc == -1) {
            throw new ErrnoException(call, (int) ERRNO.get(state, 0L));
        }
        return rc;
    }
}
