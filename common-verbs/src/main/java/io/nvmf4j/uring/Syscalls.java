package io.nvmf4j.uring;

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
 * The libc entry points the ring needs: {@code syscall(2)} for the three io_uring system calls (glibc has no
 * wrappers for them), {@code mmap(2)}/{@code munmap(2)} for the rings and {@code close(2)} for the ring fd. errno is
 * captured with {@link Linker.Option#captureCallState(String...)}: by the time Java code runs after a downcall the
 * JVM may have overwritten the thread's errno.
 */
final class Syscalls {
    /**
     * The io_uring system call numbers: the same on every architecture (asm-generic/unistd.h and the x86 syscall
     * tables, since Linux 5.1).
     */
    static final long IO_URING_SETUP = 425;
    static final long IO_URING_ENTER = 426;
    static final long IO_URING_REGISTER = 427;

    /** include/uapi/asm-generic/mman-common.h and mman.h. */
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_SHARED_POPULATE = 0x01 | 0x8000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /**
     * {@code long syscall(long number, ...)} with six variadic longs: the kernel takes at most six argument
     * registers, and passing every argument as a full 64-bit value leaves no upper half undefined.
     */
    private static final MethodHandle SYSCALL = downcall("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG),
            CAPTURE_ERRNO, Linker.Option.firstVariadicArg(1));
    /** {@code void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)}. */
    private static final MethodHandle MMAP = downcall("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG),
            CAPTURE_ERRNO);
    private static final MethodHandle MUNMAP = downcall("munmap",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private Syscalls() {
    }

    @SuppressWarnings("restricted") // FFM: binds a C function; the module is granted native access
    private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc symbol " + name + " not found"));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    /** A capture-state segment for {@link #syscall}; a ring keeps one so that its calls allocate nothing. */
    static MemorySegment newCallState(Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    /**
     * {@code syscall(number, a1..a6)}: the non-negative result, or {@code -errno} (the kernel's own convention,
     * which glibc's wrapper turned into -1 and errno). Allocates nothing.
     */
    static long syscall(MemorySegment state, long number, long a1, long a2, long a3, long a4, long a5, long a6) {
        long rc;
        try {
            rc = (long) SYSCALL.invokeExact(state, number, a1, a2, a3, a4, a5, a6);
        } catch (Throwable t) {
            throw unexpected(t);
        }
        return rc == -1 ? -(int) ERRNO.get(state, 0L) : rc;
    }

    /**
     * {@code mmap(NULL, length, PROT_READ|PROT_WRITE, MAP_SHARED|MAP_POPULATE, fd, offset)} of one ring region
     * (the offsets are the kernel's {@code IORING_OFF_*} selectors), as a zero-length segment at the address.
     */
    static MemorySegment mmap(MemorySegment state, long length, int fd, long offset) throws IoUringException {
        MemorySegment address;
        try {
            address = (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, length, PROT_READ_WRITE,
                    MAP_SHARED_POPULATE, fd, offset);
        } catch (Throwable t) {
            throw unexpected(t);
        }
        if (address.address() == -1L) { // MAP_FAILED
            throw new IoUringException("mmap(io_uring offset 0x" + Long.toHexString(offset) + ")",
                    (int) ERRNO.get(state, 0L));
        }
        return address;
    }

    /** {@code munmap(2)}; on teardown only, where a failure (EINVAL for a bad range) has nothing left to undo. */
    static void munmap(MemorySegment address, long length) {
        try {
            int ignored = (int) MUNMAP.invokeExact(address, length);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code close(2)} of the ring fd; Linux releases the fd even when close reports an error. */
    static void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** Downcalls throw nothing checked: this only satisfies the compiler. */
    private static RuntimeException unexpected(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
