package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.provider.RegionRegistration;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/** An {@code ibv_pd}; closing it deregisters its regions first, as {@code ibv_dealloc_pd} requires. */
final class IbverbsProtectionDomain implements ProtectionDomain {
    private final IbverbsDevice device;
    private final MemorySegment pd;
    private final Resources regions = new Resources();
    private boolean closed;

    IbverbsProtectionDomain(IbverbsDevice device, MemorySegment pd) {
        this.device = device;
        this.pd = pd;
    }

    MemorySegment pd() {
        return pd;
    }

    IbverbsDevice ibverbsDevice() {
        return device;
    }

    @Override
    public RdmaDevice device() {
        return device;
    }

    @Override
    public MemoryRegion register(MemorySegment nativeSegment, Set<AccessFlag> access) throws VerbsException {
        synchronized (this) {
            if (closed) {
                throw new VerbsException(VerbsErrorCode.CLOSED, "protection domain is closed");
            }
        }
        Set<AccessFlag> flags = RegionRegistration.check(nativeSegment, access);
        return regions.add(IbverbsMemoryRegion.register(this, nativeSegment, flags));
    }

    /** The {@code ibv_access_flags} of a set of access rights. */
    static int accessBits(Set<AccessFlag> flags) {
        int bits = 0;
        for (AccessFlag flag : flags) {
            bits |= switch (flag) {
                case LOCAL_WRITE -> ibverbs_h.IBV_ACCESS_LOCAL_WRITE();
                case REMOTE_READ -> ibverbs_h.IBV_ACCESS_REMOTE_READ();
                case REMOTE_WRITE -> ibverbs_h.IBV_ACCESS_REMOTE_WRITE();
                // windows are emulated by registering the slice (IbverbsMemoryWindow): the region needs no bit
                case MW_BIND -> 0;
            };
        }
        return bits;
    }

    @Override
    public MemoryWindow allocateWindow() throws VerbsException {
        synchronized (this) {
            if (closed) {
                throw new VerbsException(VerbsErrorCode.CLOSED, "protection domain is closed");
            }
        }
        return regions.add(new IbverbsMemoryWindow(this));
    }

    void forget(AutoCloseable regionOrWindow) {
        regions.remove(regionOrWindow);
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        regions.closeAll();
        int rc = device.destroyWhenReleased(() -> ibverbs_h.ibv_dealloc_pd(pd));
        device.resources().remove(this);
        if (rc != 0) {
            // EBUSY: a queue pair still uses it; the device's close destroys those first, an application that
            // closes the PD early leaks it until the device closes
            throw new IllegalStateException(VerbsErrors.exception("ibv_dealloc_pd", rc).getMessage());
        }
    }
}
