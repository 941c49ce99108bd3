package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_mr;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;

import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.Set;

/**
 * An {@code ibv_mr} over a native segment. The keys are read from the {@code struct ibv_mr} once. A peer's Send
 * with Invalidate of the rkey (which {@code siw} honours for any region) marks it invalid; {@link #refreshKey()}
 * then registers the same memory again, the only way user-space verbs have to obtain a fresh key for a region
 * from {@code ibv_reg_mr} (fast registration work requests are kernel-only).
 */
final class IbverbsMemoryRegion implements MemoryRegion {
    private final IbverbsProtectionDomain pd;
    private final MemorySegment segment;
    private final Set<AccessFlag> access;
    private MemorySegment mr;
    private volatile int lkey;
    private volatile int rkey;
    private volatile boolean invalidated;
    private volatile boolean closed;
    /** Windows bound to a slice of this region: their registrations end with it (as IBA ends bound windows). */
    private final java.util.Set<IbverbsMemoryWindow> windows = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private IbverbsMemoryRegion(IbverbsProtectionDomain pd, MemorySegment segment, Set<AccessFlag> access) {
        this.pd = pd;
        this.segment = segment;
        this.access = Collections.unmodifiableSet(access);
    }

    static IbverbsMemoryRegion register(IbverbsProtectionDomain pd, MemorySegment segment, Set<AccessFlag> access)
            throws VerbsException {
        IbverbsMemoryRegion region = new IbverbsMemoryRegion(pd, segment, access);
        region.registerNow();
        return region;
    }

    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    private void registerNow() throws VerbsException {
        MemorySegment registered = Native.ibvRegMr(pd.pd(), segment, segment.byteSize(),
                IbverbsProtectionDomain.accessBits(access)).reinterpret(ibv_mr.sizeof());
        mr = registered;
        lkey = ibv_mr.lkey(registered);
        rkey = ibv_mr.rkey(registered);
        invalidated = false;
        pd.ibverbsDevice().keys().put(rkey, this);
    }

    /** Called by a CQ that saw a Send with Invalidate of this region's rkey. */
    void markInvalidated() {
        invalidated = true;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public long address() {
        return segment.address();
    }

    @Override
    public long length() {
        return segment.byteSize();
    }

    @Override
    public Set<AccessFlag> accessFlags() {
        return access;
    }

    @Override
    public boolean isValid() {
        return !closed && !invalidated;
    }

    @Override
    public synchronized int refreshKey() throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsErrorCode.CLOSED, "memory region is deregistered");
        }
        deregister();
        registerNow();
        return rkey;
    }

    private void deregister() {
        pd.ibverbsDevice().keys().remove(rkey, this);
        int rc = ibverbs_h.ibv_dereg_mr(mr);
        if (rc != 0) {
            throw new IllegalStateException(VerbsErrors.exception("ibv_dereg_mr", rc).getMessage());
        }
    }

    void windowBound(IbverbsMemoryWindow window) {
        windows.add(window);
    }

    void windowUnbound(IbverbsMemoryWindow window) {
        windows.remove(window);
    }

    @Override
    public void close() {
        // outside this region's monitor: a window's bind holds the window's lock and then registers here
        for (IbverbsMemoryWindow window : java.util.List.copyOf(windows)) {
            window.invalidate();
        }
        closeRegion();
    }

    private synchronized void closeRegion() {
        if (closed) {
            return;
        }
        closed = true;
        pd.forget(this);
        deregister();
    }

    @Override
    public String toString() {
        return "MR[addr=0x" + Long.toHexString(address()) + ", len=" + length() + ", lkey=0x"
                + Integer.toHexString(lkey) + ", rkey=0x" + Integer.toHexString(rkey) + "]";
    }
}
