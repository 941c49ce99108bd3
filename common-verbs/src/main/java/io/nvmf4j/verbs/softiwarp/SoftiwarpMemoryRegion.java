package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * A registered region: lkey = rkey = its STag (as siw). The progress engine checks every access with
 * {@link #check} (siw_check_mem) before touching a byte, and reads/writes through {@link #view}.
 */
public final class SoftiwarpMemoryRegion implements MemoryRegion {
    private final SoftiwarpProtectionDomain pd;
    private final StagTable table;
    private final MemorySegment segment;
    private final long address;
    private final long length;
    private final Set<AccessFlag> access;
    private final boolean localWrite;
    private final boolean remoteRead;
    private final boolean remoteWrite;
    /**
     * A whole-region ByteBuffer view to duplicate from, or null above 2 GiB. It keeps the arena's scope, so an
     * arena cannot be closed under a transfer in progress (NIO holds the scope during each read/write). The JDK
     * pays for that with two small objects per scoped buffer in a gathering write (IOUtil.write: LinkedRunnable
     * and Releaser): the only per-operation allocation on the data path, and not ours to remove.
     */
    private final ByteBuffer wholeView;
    private final int index;
    private volatile int stag;
    private volatile boolean valid;
    private volatile boolean closed;

    SoftiwarpMemoryRegion(SoftiwarpProtectionDomain pd, StagTable table, MemorySegment segment,
                          Set<AccessFlag> access) throws VerbsException {
        this.pd = pd;
        this.table = table;
        this.segment = segment;
        this.address = segment.address();
        this.length = segment.byteSize();
        this.access = Collections.unmodifiableSet(access.isEmpty() ? EnumSet.noneOf(AccessFlag.class)
                : EnumSet.copyOf(access));
        this.localWrite = access.contains(AccessFlag.LOCAL_WRITE);
        this.remoteRead = access.contains(AccessFlag.REMOTE_READ);
        this.remoteWrite = access.contains(AccessFlag.REMOTE_WRITE);
        this.wholeView = length <= Integer.MAX_VALUE ? segment.asByteBuffer() : null;
        int initial = table.add(this);
        this.index = initial >>> 8;
        this.stag = initial;
        this.valid = true;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    SoftiwarpProtectionDomain pd() {
        return pd;
    }

    @Override
    public int lkey() {
        return stag;
    }

    @Override
    public int rkey() {
        return stag;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public Set<AccessFlag> accessFlags() {
        return access;
    }

    @Override
    public boolean isValid() {
        return valid && !closed;
    }

    @Override
    public synchronized int refreshKey() throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsErrorCode.CLOSED, "memory region was deregistered");
        }
        int key = (stag + 1) & 0xff;
        stag = index << 8 | key;
        valid = true;
        return stag;
    }

    /**
     * Invalidates the region if {@code rkey} is its current STag (siw_invalidate_stag: done by a Send with
     * Invalidate). Returns false if the key does not match.
     */
    boolean invalidate(int rkey) {
        if (rkey != stag || closed) {
            return false;
        }
        valid = false;
        return true;
    }

    /**
     * siw_check_mem(): valid STag (same key), same protection domain, the needed right, and [address, address +
     * len) inside the region. Arithmetic is overflow-safe: nothing outside the region ever passes.
     */
    MemoryCheck check(int expectedStag, SoftiwarpProtectionDomain domain, boolean needLocalWrite,
                      boolean needRemoteRead, boolean needRemoteWrite, long accessAddress, long len) {
        if (closed || !valid || expectedStag != stag || !segment.scope().isAlive()) {
            return MemoryCheck.STAG_INVALID;
        }
        if (domain != pd) {
            return MemoryCheck.PD_MISMATCH;
        }
        if ((needLocalWrite && !localWrite) || (needRemoteRead && !remoteRead) || (needRemoteWrite && !remoteWrite)) {
            return MemoryCheck.ACCESS_PERM;
        }
        long offset = accessAddress - address;
        if (len < 0 || Long.compareUnsigned(accessAddress, address) < 0 || offset < 0 || offset > length
                || len > length - offset) {
            return MemoryCheck.BASE_BOUNDS;
        }
        return MemoryCheck.OK;
    }

    /**
     * A ByteBuffer over [offset, offset + len) of the region, position 0 .. limit len relative to the slice.
     * {@code reuse} is a view of this region made earlier by the same caller (or null): it is re-positioned
     * instead of allocating a new one.
     */
    ByteBuffer view(ByteBuffer reuse, long offset, int len) {
        if (wholeView == null) {
            return segment.asSlice(offset, len).asByteBuffer();
        }
        ByteBuffer view = reuse != null ? reuse : wholeView.duplicate();
        view.limit((int) offset + len).position((int) offset);
        return view;
    }

    boolean hasWholeView() {
        return wholeView != null;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            valid = false;
            table.remove(index, this);
            pd.forget(this);
        }
    }

    @Override
    public String toString() {
        return "MR[stag=0x" + Integer.toHexString(stag) + ", addr=0x" + Long.toHexString(address) + ", len=" + length
                + ", " + access + (isValid() ? "" : ", invalid") + "]";
    }
}
