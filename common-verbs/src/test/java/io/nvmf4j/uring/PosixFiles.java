package io.nvmf4j.uring;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * open(2) and close(2) for the tests: the ring takes a raw descriptor, and Java's file APIs neither hand one out nor
 * open a file for direct I/O.
 */
final class PosixFiles {
    private static final int O_RDWR = 2;
    private static final int O_CLOEXEC = 02000000;
    /** 040000 on x86-64, 0200000 on aarch64 (arch/arm64/include/uapi/asm/fcntl.h). */
    static final int O_DIRECT = "aarch64".equals(System.getProperty("os.arch")) ? 0200000 : 040000;

    private static final Linker LINKER = Linker.nativeLinker();
    @SuppressWarnings("restricted") // FFM: binds a C function; the module is granted native access
    private static final MethodHandle OPEN = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("open"),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    @SuppressWarnings("restricted") // FFM: binds a C function; the module is granted native access
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("close"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private PosixFiles() {
    }

    /** An O_RDWR | O_DIRECT descriptor of an existing file. */
    static int openDirect(Path file) {
        return open(file, O_RDWR | O_DIRECT);
    }

    /** An O_RDWR descriptor (through the page cache) of an existing file. */
    static int openBuffered(Path file) {
        return open(file, O_RDWR);
    }

    private static int open(Path file, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) OPEN.invokeExact(arena.allocateFrom(file.toString()), flags | O_CLOEXEC, 0);
            if (fd < 0) {
                throw new IllegalStateException("open(" + file + ", 0" + Integer.toOctalString(flags) + ") failed");
            }
            return fd;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
