package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_mr;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;
import io.nvmf4j.verbs.provider.WindowBinding;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

/**
 * A memory window emulated by registration: siw has no memory windows (siw_query_device reports none, and
 * {@code ibv_alloc_mw} is not implemented by rdma-core's siw provider), and fast registration work requests are
 * kernel-only, so a bind registers exactly the slice with {@code ibv_reg_mr} (deregistering the previous binding
 * first) and an invalidate deregisters it. The kernel picks the keys; a deregistered key names nothing afterwards.
 * Such keys are not remotely invalidatable (rxe_invalidate_mr() refuses {@code IB_MR_TYPE_MEM_REG}): the owner
 * must {@link #invalidate()} after every use. A bind costs a system call and pins pages: this is the slow path,
 * for correctness on kernel devices, not for speed.
 */
final class IbverbsMemoryWindow implements MemoryWindow {
    private final IbverbsProtectionDomain pd;
    private MemorySegment mr;
    private IbverbsMemoryRegion parent;
    private int rkey;
    private long address;
    private long length;
    private boolean closed;

    IbverbsMemoryWindow(IbverbsProtectionDomain pd) {
        this.pd = pd;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    public synchronized int bind(MemoryRegion region, long offset, long length, Set<AccessFlag> remoteAccess)
            throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsErrorCode.CLOSED, "memory window is closed");
        }
        int access = IbverbsProtectionDomain.accessBits(checkedAccess(region, pd, offset, length, remoteAccess));
        invalidate();
        MemorySegment slice = region.segment().asSlice(offset, length);
        MemorySegment registered = Native.ibvRegMr(pd.pd(), slice, length, access).reinterpret(ibv_mr.sizeof());
        mr = registered;
        if (region instanceof IbverbsMemoryRegion r) {
            parent = r;
            r.windowBound(this);
        }
        rkey = ibv_mr.rkey(registered);
        address = region.address() + offset;
        this.length = length;
        return rkey;
    }

    /**
     * The access a binding registers the slice with, after the checks {@link MemoryWindow#bind} promises: the
     * remote rights, plus LOCAL_WRITE with REMOTE_WRITE, as ibv_reg_mr requires.
     */
    static Set<AccessFlag> checkedAccess(MemoryRegion region, ProtectionDomain pd, long offset, long length,
                                         Set<AccessFlag> remoteAccess) throws VerbsException {
        WindowBinding.check(region, pd, offset, length, remoteAccess);
        Set<AccessFlag> flags = EnumSet.noneOf(AccessFlag.class);
        flags.addAll(remoteAccess);
        if (remoteAccess.contains(AccessFlag.REMOTE_WRITE)) {
            flags.add(AccessFlag.LOCAL_WRITE);
        }
        return flags;
    }

    @Override
    public synchronized void invalidate() {
        MemorySegment registered = mr;
        if (registered == null) {
            return;
        }
        mr = null;
        if (parent != null) {
            parent.windowUnbound(this);
            parent = null;
        }
        int rc = ibverbs_h.ibv_dereg_mr(registered);
        if (rc != 0) {
            throw new IllegalStateException(VerbsErrors.exception("ibv_dereg_mr", rc).getMessage());
        }
    }

    @Override
    public synchronized int rkey() {
        return rkey;
    }

    @Override
    public synchronized boolean isBound() {
        return mr != null;
    }

    @Override
    public synchronized long address() {
        return address;
    }

    @Override
    public synchronized long length() {
        return length;
    }

    @Override
    public boolean remotelyInvalidatable() {
        return false;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            invalidate();
        }
        pd.forget(this);
    }

    @Override
    public synchronized String toString() {
        return "MW[rkey=0x" + Integer.toHexString(rkey) + (mr != null ? ", len=" + length : ", unbound") + "]";
    }
}
