package io.nvmf4j.verbs.softiwarp;

/**
 * What an STag names in the device's {@link StagTable} (siw's {@code struct siw_mem}, whose {@code is_mw} tells the
 * two apart): a registered region, usable locally and, with its rights, remotely; or a memory window, a remote-only
 * view of a slice of a region that a peer may invalidate. The progress engine asks every remote access through
 * {@link #checkRemote} and places through {@link #target()}'s views.
 */
abstract sealed class StagEntry permits SoftiwarpMemoryRegion, SoftiwarpMemoryWindow {

    /** Result of {@link #remoteInvalidate}: the binding ended. */
    static final int INVALIDATED = 0;
    /** The STag names nothing here, or an older key of the entry (RFC 5040 4.8: remote operation error). */
    static final int INVALIDATE_UNKNOWN = 1;
    /**
     * The STag names memory the peer may not invalidate: of another protection domain, or a registered region
     * (remote protection error).
     */
    static final int INVALIDATE_REFUSED = 2;

    /**
     * siw_check_mem() for a peer's tagged access: valid STag with this key, same protection domain, the remote
     * right, and [address, address + len) inside what the STag covers; {@code target} must be {@link #target()}
     * as the caller read it before (a window may be rebound meanwhile: then the check fails).
     */
    abstract MemoryCheck checkRemote(int stag, SoftiwarpProtectionDomain domain, boolean needRemoteRead,
                                     boolean needRemoteWrite, long address, long len, SoftiwarpMemoryRegion target);

    /** The region whose memory an access through this STag reads or writes (for a window: its current parent). */
    abstract SoftiwarpMemoryRegion target();

    /**
     * A peer's Send with Invalidate of {@code stag} on a queue pair of {@code domain} (siw_invalidate_stag()):
     * {@link #INVALIDATED}, {@link #INVALIDATE_UNKNOWN} or {@link #INVALIDATE_REFUSED}.
     */
    abstract int remoteInvalidate(int stag, SoftiwarpProtectionDomain domain);
}
