package io.nvmf4j.verbs;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Set;

/** A protection domain ({@code ibv_pd}): memory regions and queue pairs of one PD may be used together only. */
public interface ProtectionDomain extends AutoCloseable {
    /** The device this domain belongs to. */
    RdmaDevice device();

    /**
     * Registers memory ({@code ibv_reg_mr}). The segment must be native (off-heap) and stay alive until the
     * region is closed; its address is the region's remote-visible address ({@link MemoryRegion#address()}).
     *
     * @throws VerbsException INVALID_ARGUMENT for a heap segment, an empty one, or REMOTE_WRITE without LOCAL_WRITE
     */
    MemoryRegion register(MemorySegment nativeSegment, Set<AccessFlag> access) throws VerbsException;

    /**
     * Registers the memory of a direct buffer, from its position to its limit, as {@link #register(MemorySegment,
     * Set)} does for {@code MemorySegment.ofBuffer(directBuffer)}. Give a buffer from
     * {@code ByteBuffer.allocateDirect} (or a slice of one) for the data path: a provider that moves data through
     * sockets (softiwarp) can then gather it into one {@code writev} without allocating, which JDK 25 does not do
     * for views of a memory segment (sun.nio.ch.IOUtil holds each such view's scope with two objects per write).
     * The buffer must stay reachable until the region is closed; the garbage collector frees its memory after.
     *
     * @throws VerbsException INVALID_ARGUMENT for a heap buffer, as for a heap segment
     */
    default MemoryRegion register(ByteBuffer directBuffer, Set<AccessFlag> access) throws VerbsException {
        if (!directBuffer.isDirect()) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "only direct buffers can be registered");
        }
        return register(MemorySegment.ofBuffer(directBuffer), access);
    }

    /**
     * Allocates an unbound memory window ({@code ibv_alloc_mw} with {@code IBV_MW_TYPE_2}): a remote key that a
     * {@link MemoryWindow#bind bind} points at a slice of a region registered with {@link AccessFlag#MW_BIND}.
     * The window lives until closed; binding it again does not allocate.
     */
    MemoryWindow allocateWindow() throws VerbsException;

    /** Deallocates the domain; regions still registered in it are deregistered. Idempotent. */
    @Override
    void close();
}
