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
 * {@link #check} (siw_check_mem) before touching a byte, and reads/writes through {@link #view}. A peer can never
 * invalidate it (see {@link #remoteInvalidate}); memory windows bound to it are {@link SoftiwarpMemoryWindow}s.
 */
public final class SoftiwarpMemoryRegion extends StagEntry implements MemoryRegion {
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
     * and Releaser), so the data path uses single-buffer reads and writes only, which allocate nothing.
     */
    private final ByteBuffer wholeView;
    /**
     * For a region registered from a direct buffer: a slice of it, the same bytes as {@link #wholeView} without a
     * segment scope (its memory lives while the buffer is reachable, and this region holds it). Views of it go
     * into gathering writes without allocating; null for a region registered from a memory segment.
     */
    private final ByteBuffer plainView;
    private final int index;
    private volatile int stag;
    private volatile boolean closed;

    SoftiwarpMemoryRegion(SoftiwarpProtectionDomain pd, StagTable table, MemorySegment segment, ByteBuffer plain,
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
        this.wholeView = plain != null ? plain : length <= Integer.MAX_VALUE ? segment.asByteBuffer() : null;
        this.plainView = plain;
        int initial = table.add(this);
        this.index = initial >>> 8;
        this.stag = initial;
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
        return !closed;
    }

    /** Local re-keying: a new random key part, never the current one; every earlier key is dead from here on. */
    @Override
    public synchronized int refreshKey() throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsErrorCode.CLOSED, "memory region was deregistered");
        }
        int key = table.nextKey(stag & 0xff);
        stag = index << 8 | key;
        table.keyChanged(index, key);
        return stag;
    }

    /**
     * A peer may not invalidate a registered region: IBA allows remote invalidation only of memory windows and
     * fast-registered regions (Linux rxe_invalidate_mr() refuses {@code IB_MR_TYPE_MEM_REG}), and the target's
     * buffer pool must not be switchable off by one Send with Invalidate (issue F1). A wrong key is an unknown STag.
     */
    @Override
    int remoteInvalidate(int rkey, SoftiwarpProtectionDomain domain) {
        if (rkey != stag || closed) {
            return INVALIDATE_UNKNOWN;
        }
        return INVALIDATE_REFUSED;
    }

    @Override
    SoftiwarpMemoryRegion target() {
        return this;
    }

    @Override
    MemoryCheck checkRemote(int expectedStag, SoftiwarpProtectionDomain domain, boolean needRemoteRead,
                            boolean needRemoteWrite, long accessAddress, long len, SoftiwarpMemoryRegion target) {
        return check(expectedStag, domain, false, needRemoteRead, needRemoteWrite, accessAddress, len);
    }

    /** Whether [offset, offset + len) is a non-empty slice of the region (a window's bind range). */
    boolean covers(long offset, long len) {
        return offset >= 0 && len > 0 && offset <= length && len <= length - offset;
    }

    /**
     * siw_check_mem(): valid STag (same key), same protection domain, the needed right, and [address, address +
     * len) inside the region. Arithmetic is overflow-safe: nothing outside the region ever passes.
     */
    MemoryCheck check(int expectedStag, SoftiwarpProtectionDomain domain, boolean needLocalWrite,
                      boolean needRemoteRead, boolean needRemoteWrite, long accessAddress, long len) {
        if (closed || expectedStag != stag || !segment.scope().isAlive()) {
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

    /** Whether {@link #view}s of this region gather into one write without allocating (see {@link #plainView}). */
    boolean gatherable() {
        return plainView != null;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
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
