package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.provider.WindowBinding;

import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A type 2 memory window: an entry of the STag table of its own (siw's {@code struct siw_mem} with {@code is_mw})
 * over a slice of a parent region. The progress engine checks a peer's tagged access to it like a region's (PD, key,
 * rights, bounds: {@link #checkRemote}), and a peer's Send with Invalidate of its current STag ends the binding
 * (RFC 5040 4.1, the Invalidate STag field; IBA: remote invalidation is for windows and fast-registered memory).
 *
 * <p>Bind and invalidate run on the owner's thread while the engine may be checking an access: the binding's
 * fields are published under a sequence number (odd while they change, as a seqlock), so a check never mixes two
 * bindings, and an access with the key of an earlier binding fails even if it raced with the rebind. Nothing is
 * allocated per bind: the entry, its index and its key generator are made once, at {@code allocateWindow}.
 */
final class SoftiwarpMemoryWindow extends StagEntry implements MemoryWindow {
    private final SoftiwarpProtectionDomain pd;
    private final StagTable table;
    private final int index;
    private final SplittableRandom keys;

    /** Odd while a bind or invalidate changes the fields below; each change moves it on by two. */
    private volatile int sequence;
    private volatile int stag;
    private volatile boolean bound;
    private volatile boolean closed;
    // the binding; written only with sequence odd, read by the engine between two reads of sequence
    private SoftiwarpMemoryRegion parent;
    private long address;
    private long length;
    private boolean remoteRead;
    private boolean remoteWrite;

    SoftiwarpMemoryWindow(SoftiwarpProtectionDomain pd, StagTable table) throws VerbsException {
        this.pd = pd;
        this.table = table;
        this.keys = table.split();
        int initial = table.add(this);
        this.index = initial >>> 8;
        this.stag = initial;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public int bind(MemoryRegion region, long offset, long length, Set<AccessFlag> remoteAccess)
            throws VerbsException {
        WindowBinding.check(region, pd, offset, length, remoteAccess);
        SoftiwarpMemoryRegion mr = (SoftiwarpMemoryRegion) region; // of this window's domain: a softiwarp region
        synchronized (this) {
            if (closed) {
                throw new VerbsException(VerbsErrorCode.CLOSED, "memory window is closed");
            }
            int key = (stag + 1 + keys.nextInt(255)) & 0xff; // random, never the previous binding's
            int seq = sequence;
            sequence = seq + 1;
            bound = false;
            parent = mr;
            address = mr.address() + offset;
            this.length = length;
            remoteRead = remoteAccess.contains(AccessFlag.REMOTE_READ);
            remoteWrite = remoteAccess.contains(AccessFlag.REMOTE_WRITE);
            stag = index << 8 | key;
            bound = true;
            sequence = seq + 2;
            return index << 8 | key;
        }
    }

    @Override
    public synchronized void invalidate() {
        if (bound) {
            int seq = sequence;
            sequence = seq + 1;
            bound = false;
            sequence = seq + 2;
        }
    }

    @Override
    public int rkey() {
        return bound || sequence != 0 ? stag : 0;
    }

    @Override
    public boolean isBound() {
        return bound && !closed;
    }

    @Override
    public synchronized long address() {
        return sequence == 0 ? 0 : address;
    }

    @Override
    public synchronized long length() {
        return sequence == 0 ? 0 : length;
    }

    @Override
    public boolean remotelyInvalidatable() {
        return true;
    }

    @Override
    MemoryCheck checkRemote(int expectedStag, SoftiwarpProtectionDomain domain, boolean needRemoteRead,
                            boolean needRemoteWrite, long accessAddress, long len, SoftiwarpMemoryRegion target) {
        int seq = sequence;
        if ((seq & 1) != 0 || !bound || expectedStag != stag) {
            return MemoryCheck.STAG_INVALID;
        }
        SoftiwarpMemoryRegion mr = parent;
        long base = address;
        long size = length;
        boolean read = remoteRead;
        boolean write = remoteWrite;
        VarHandle.acquireFence(); // the plain reads above happen before the re-read of sequence (StampedLock.validate)
        if (sequence != seq || mr != target || mr == null || !mr.isValid() || !mr.segment().scope().isAlive()) {
            return MemoryCheck.STAG_INVALID;
        }
        if (domain != pd) {
            return MemoryCheck.PD_MISMATCH;
        }
        if ((needRemoteRead && !read) || (needRemoteWrite && !write)) {
            return MemoryCheck.ACCESS_PERM;
        }
        long offset = accessAddress - base;
        if (len < 0 || Long.compareUnsigned(accessAddress, base) < 0 || offset < 0 || offset > size
                || len > size - offset) {
            return MemoryCheck.BASE_BOUNDS;
        }
        return MemoryCheck.OK;
    }

    @Override
    SoftiwarpMemoryRegion target() {
        int seq = sequence; // acquire: the parent read below is at least as new as the binding this publishes
        return seq == 0 ? null : parent;
    }

    /**
     * siw_invalidate_stag() for a window: the current STag of a bound window of the queue pair's domain ends its
     * binding. A window of another domain is a protection error; an older key names nothing.
     */
    @Override
    synchronized int remoteInvalidate(int rkey, SoftiwarpProtectionDomain domain) {
        if (closed || rkey != stag || sequence == 0) {
            return INVALIDATE_UNKNOWN;
        }
        if (domain != pd) {
            return INVALIDATE_REFUSED;
        }
        // already invalidated locally (e.g. a command the owner timed out): as siw_invalidate_stag(), "an STag may
        // already be in invalid state if invalidation is requested", which is no error
        invalidate();
        return INVALIDATED;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            invalidate();
            closed = true;
        }
        table.keyChanged(index, stag & 0xff);
        table.remove(index, this);
        pd.forget(this);
    }

    @Override
    public String toString() {
        return "MW[stag=0x" + Integer.toHexString(stag) + (isBound() ? ", addr=0x" + Long.toHexString(address)
                + ", len=" + length : ", unbound") + "]";
    }
}
