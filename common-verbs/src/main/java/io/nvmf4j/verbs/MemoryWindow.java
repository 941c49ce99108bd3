package io.nvmf4j.verbs;

import java.util.Set;

/**
 * A type 2 memory window ({@code ibv_mw}, IBA 10.6.7; an RDMAC/RFC 5040 "Memory Window" STag): a remote key that
 * covers exactly one slice of a registered region while it is bound, as Linux nvme-rdma uses fast registration
 * (FRWR) to expose exactly one command's bytes for that command's life. Made by
 * {@link ProtectionDomain#allocateWindow()}; the region must have been registered with {@link AccessFlag#MW_BIND}.
 *
 * <p>Binding and invalidating are synchronous calls (no work request to post) and, on softiwarp, allocate nothing:
 * an initiator binds once per I/O. Binding and invalidation are for one thread at a time (the window's owner).
 */
public interface MemoryWindow extends AutoCloseable {
    /** The domain it was allocated in; only queue pairs of this domain reach it. */
    ProtectionDomain protectionDomain();

    /**
     * Binds the window to {@code [offset, offset + length)} of {@code region} with the given remote rights (a
     * non-empty subset of {@link AccessFlag#REMOTE_READ} and {@link AccessFlag#REMOTE_WRITE}) under a fresh rkey:
     * its 8-bit key part is random and never the previous binding's. Any earlier binding ends first; its key is
     * invalid from then on. The remote-visible address of byte {@code offset} is {@code region.address() + offset}.
     *
     * @return the new rkey
     * @throws VerbsException INVALID_ARGUMENT if the slice is empty or not inside the region, the rights are not
     *                        remote ones, the region lacks {@link AccessFlag#MW_BIND}, or REMOTE_WRITE is asked of
     *                        a region without {@link AccessFlag#LOCAL_WRITE} (IBA 10.6.7.2.2); INVALID_KEY if the
     *                        region is of another domain or deregistered; CLOSED if the window is closed
     */
    int bind(MemoryRegion region, long offset, long length, Set<AccessFlag> remoteAccess) throws VerbsException;

    /**
     * Ends the current binding (a local invalidate, {@code IBV_WR_LOCAL_INV}): its key is invalid when this returns.
     * Idempotent; a no-op when not bound.
     */
    void invalidate();

    /** The key of the current or last binding (0 before the first). */
    int rkey();

    /** Whether a binding is in effect: bound, and not invalidated locally or by the peer since. */
    boolean isBound();

    /** The remote-visible address of the bound slice's first byte (0 when never bound). */
    long address();

    /** The length of the bound slice (0 when never bound). */
    long length();

    /**
     * Whether a peer's Send with Invalidate naming {@link #rkey()} ends the binding (RFC 5040 5.1, 6.10). False on
     * the ibverbs provider, where a window is emulated by registering the slice (rxe refuses to invalidate such
     * keys remotely): there the owner must {@link #invalidate()} after every use.
     */
    boolean remotelyInvalidatable();

    /** Ends the binding and deallocates the window ({@code ibv_dealloc_mw}); idempotent. */
    @Override
    void close();
}
