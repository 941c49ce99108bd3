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

    /**
     * False once the region was deregistered. A peer's Send with Invalidate never ends a region made by
     * {@link ProtectionDomain#register register}: IBA (and RFC 5040's STag rules) let a peer invalidate only memory
     * windows and fast-registered regions; use a {@link MemoryWindow} to give a peer a key it may invalidate.
     */
    boolean isValid();

    /**
     * Local re-keying: gives the region a new rkey, changing only the 8-bit key part (like a fast registration
     * with {@code ib_inc_rkey()}); every earlier key is invalid from then on. Returns the new rkey. Peers cannot
     * invalidate a region; this exists to revoke a key handed out earlier. For a per-command remote key, bind a
     * {@link MemoryWindow} instead.
     */
    int refreshKey() throws VerbsException;

    /** Deregisters the region ({@code ibv_dereg_mr}); idempotent. */
    @Override
    void close();
}
