package io.nvmf4j.verbs;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * Registered memory ({@code ibv_mr}). Closing it deregisters it: its keys become invalid at once, later remote
 * accesses with them end in a remote access error.
 */
public interface MemoryRegion extends AutoCloseable {
    /** The registered memory. */
    MemorySegment segment();

    /** The domain it was registered in. */
    ProtectionDomain protectionDomain();

    /** The local key, used in {@link ScatterGatherElement}s. */
    int lkey();

    /** The remote key (for iWARP, the STag: 24-bit index and 8-bit key) a peer names the region by. */
    int rkey();

    /** The remote-visible virtual address of byte 0 (= {@code segment().address()}). */
    long address();

    /** The length in bytes. */
    long length();

    /** The access rights given at registration. */
    Set<AccessFlag> accessFlags();

    /** False once the region was deregistered, or its rkey invalidated by a SEND_WITH_INVALIDATE. */
    boolean isValid();

    /**
     * Makes the region valid again under a new rkey after an invalidation, changing only the 8-bit key part
     * (like a fast registration with {@code ib_inc_rkey()}); old keys stay invalid. Returns the new rkey.
     */
    int refreshKey() throws VerbsException;

    /** Deregisters the region ({@code ibv_dereg_mr}); idempotent. */
    @Override
    void close();
}
