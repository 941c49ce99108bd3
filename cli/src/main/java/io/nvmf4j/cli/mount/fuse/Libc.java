package io.nvmf4j.cli.mount.fuse;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/** {@code umount2(2)} from libc, with errno captured (the one system call the mount needs that libfuse lacks). */
public final class Libc {

    /** {@code MNT_DETACH} (sys/mount.h): lazy unmount, for a mount point that stays busy. */
    public static final int MNT_DETACH = 2;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout_path());
    @SuppressWarnings("restricted") // FFM: binds a C function; the module is granted native access
    private static final MethodHandle UMOUNT2 = LINKER.downcallHandle(
            LINKER.defaultLookup().find("umount2").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
            Linker.Option.captureCallState("errno"));

    private Libc() {
    }

    private static java.lang.foreign.MemoryLayout.PathElement MemoryLayout_path() {
        return java.lang.foreign.MemoryLayout.PathElement.groupElement("errno");
    }

    /** {@code umount2(target, flags)}: 0, or the errno it failed with. */
    public static int umount2(String target, int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CAPTURE);
            int rc = (int) UMOUNT2.invokeExact(state, a.allocateFrom(target), flags);
            return rc == 0 ? 0 : (int) ERRNO.get(state, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("umount2 " + target, t);
        }
    }
}
