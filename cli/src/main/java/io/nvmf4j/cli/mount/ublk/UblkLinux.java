package io.nvmf4j.cli.mount.ublk;

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
 * The few libc calls a ublk server makes besides io_uring: open(2) of the control and char devices, a read-only
 * shared mmap(2) of a queue's descriptor array, and an eventfd(2) that wakes a queue thread waiting in its ring.
 * errno is captured on each call.
 */
final class UblkLinux {
    static final int O_RDWR = 2;
    static final int O_CLOEXEC = 02000000;
    private static final int PROT_READ = 1;
    private static final int MAP_SHARED = 1;
    private static final int MAP_POPULATE = 0x8000;
    private static final int EFD_CLOEXEC = 02000000;
    private static final int SC_PAGESIZE = 30;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle OPEN = downcall("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    /** write(2) without errno: the eventfd signal is called per completion burst from other threads, allocates nothing. */
    @SuppressWarnings("restricted") // FFM: binds a C function; the CLI runs with native access enabled
    private static final MethodHandle WRITE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("write"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle EVENTFD = downcall("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle MMAP = downcall("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = downcall("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle SYSCONF = downcall("sysconf", FunctionDescriptor.of(JAVA_LONG, JAVA_INT));

    private UblkLinux() {
    }

    @SuppressWarnings("restricted") // FFM: binds a C function; the CLI runs with native access enabled
    private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... extra) {
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        System.arraycopy(extra, 0, options, 0, extra.length);
        options[extra.length] = Linker.Option.captureCallState("errno");
        return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), descriptor, options);
    }

    /** open(path, O_RDWR | O_CLOEXEC). */
    static int open(String path) throws UblkException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CAPTURE);
            int fd = (int) OPEN.invokeExact(state, a.allocateFrom(path), O_RDWR | O_CLOEXEC, 0);
            if (fd < 0) {
                throw new UblkException("open " + path, (int) ERRNO.get(state, 0L));
            }
            return fd;
        } catch (UblkException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static void close(int fd) {
        try (Arena a = Arena.ofConfined()) {
            int ignored = (int) CLOSE.invokeExact(a.allocate(CAPTURE), fd);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** eventfd(0, EFD_CLOEXEC). */
    static int eventfd() throws UblkException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CAPTURE);
            int fd = (int) EVENTFD.invokeExact(state, 0, EFD_CLOEXEC);
            if (fd < 0) {
                throw new UblkException("eventfd", (int) ERRNO.get(state, 0L));
            }
            return fd;
        } catch (UblkException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Adds {@code one} (8 bytes holding 1, any thread may read them) to an eventfd's counter, from any thread. It
     * cannot fail short of a closed descriptor: the counter would have to reach 2^64 - 1.
     */
    static void signal(int eventFd, MemorySegment one) {
        try {
            long ignored = (long) WRITE.invokeExact(eventFd, one, 8L);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A read-only shared mapping of {@code length} bytes of {@code fd} at {@code offset}, unmapped with the arena. */
    @SuppressWarnings("restricted") // FFM: sizes the pointer mmap returned
    static MemorySegment mapReadOnly(Arena arena, int fd, long offset, long length) throws UblkException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CAPTURE);
            MemorySegment at = (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, length, PROT_READ,
                    MAP_SHARED | MAP_POPULATE, fd, offset);
            if (at.address() == -1L) {
                throw new UblkException("mmap of the I/O descriptors at " + offset, (int) ERRNO.get(state, 0L));
            }
            return at.reinterpret(length, arena, unmapped -> munmap(unmapped, length));
        } catch (UblkException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static void munmap(MemorySegment at, long length) {
        try (Arena a = Arena.ofConfined()) {
            int ignored = (int) MUNMAP.invokeExact(a.allocate(CAPTURE), at, length);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static long pageSize() {
        try (Arena a = Arena.ofConfined()) {
            return (long) SYSCONF.invokeExact(a.allocate(CAPTURE), SC_PAGESIZE);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
