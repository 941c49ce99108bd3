package io.nvmf4j.verbs;

import java.lang.foreign.MemorySegment;
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
     * Allocates an unbound memory window ({@code ibv_alloc_mw} with {@code IBV_MW_TYPE_2}): a remote key that a
     * {@link MemoryWindow#bind bind} points at a slice of a region registered with {@link AccessFlag#MW_BIND}.
     * The window lives until closed; binding it again does not allocate.
     */
    MemoryWindow allocateWindow() throws VerbsException;

    /** Deallocates the domain; regions still registered in it are deregistered. Idempotent. */
    @Override
    void close();
}
