package io.nvmf4j.initiator;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.EnumSet;

/**
 * Registration of the callers' zero-copy buffers in the controller's protection domain. The registration gives no
 * remote access by itself (issue 13, F6): local access and window binding only; each command exposes exactly its
 * own bytes, for its own life, through a memory window of its queue.
 */
final class HostBuffers implements AutoCloseable {

    private final String name;
    private final ProtectionDomain pd;
    private final Arena arena = Arena.ofShared();
    private static final int PAGE = 4096;

    /** {@code pd} null: a transport without memory registration (NVMe/TCP). */
    HostBuffers(String name, ProtectionDomain pd) {
        this.name = name;
        this.pd = pd;
    }

    IoBuffer allocate(long size) throws NvmfException {
        if (size <= Integer.MAX_VALUE - 2 * PAGE) {
            // a direct buffer, which a socket's gathering write sends from without a copy and without allocating
            // (NVMe/TCP: IoBuffer.direct(); softiwarp: a region registered from the buffer); the garbage collector
            // frees it once nothing refers to it
            // whole pages and one more: alignedSlice keeps only whole pages from the first aligned address
            int pages = (int) ((size + PAGE - 1) / PAGE);
            ByteBuffer direct = ByteBuffer.allocateDirect((pages + 1) * PAGE).alignedSlice(PAGE).slice(0, (int) size);
            if (pd == null) {
                return new IoBuffer(MemorySegment.ofBuffer(direct), direct);
            }
            try {
                return new IoBuffer(pd.register(direct, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND)));
            } catch (VerbsException e) {
                throw new NvmfException(name + ": cannot register " + size + " bytes: " + e.getMessage(), e);
            }
        }
        return register(arena.allocate(size, PAGE));
    }

    IoBuffer register(MemorySegment nativeSegment) throws NvmfException {
        if (pd == null) {
            return new IoBuffer(nativeSegment, null); // NVMe/TCP: the socket reads and writes it, nothing to register
        }
        try {
            MemoryRegion mr = pd.register(nativeSegment, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND));
            return new IoBuffer(mr);
        } catch (VerbsException e) {
            throw new NvmfException(name + ": cannot register " + nativeSegment.byteSize() + " bytes: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        arena.close();
    }
}
