package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** A protection domain: regions are checked against the queue pair's domain on every access (siw_check_mem). */
public final class SoftiwarpProtectionDomain implements ProtectionDomain {
    private final SoftiwarpDevice device;
    private final List<SoftiwarpMemoryRegion> regions = new ArrayList<>();
    private boolean closed;

    SoftiwarpProtectionDomain(SoftiwarpDevice device) {
        this.device = device;
    }

    @Override
    public RdmaDevice device() {
        return device;
    }

    SoftiwarpDevice softiwarpDevice() {
        return device;
    }

    @Override
    public MemoryRegion register(MemorySegment nativeSegment, Set<AccessFlag> access) throws VerbsException {
        if (!nativeSegment.isNative()) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT,
                    "only native (off-heap) memory segments can be registered");
        }
        if (nativeSegment.byteSize() == 0) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "cannot register an empty segment");
        }
        if (access.contains(AccessFlag.REMOTE_WRITE) && !access.contains(AccessFlag.LOCAL_WRITE)) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "REMOTE_WRITE requires LOCAL_WRITE (as ibv_reg_mr)");
        }
        synchronized (this) {
            if (closed) {
                throw new VerbsException(VerbsErrorCode.CLOSED, "protection domain is closed");
            }
            SoftiwarpMemoryRegion region = new SoftiwarpMemoryRegion(this, device.stagTable(), nativeSegment, access);
            regions.add(region);
            return region;
        }
    }

    synchronized void forget(SoftiwarpMemoryRegion region) {
        regions.remove(region);
    }

    @Override
    public void close() {
        List<SoftiwarpMemoryRegion> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(regions);
        }
        toClose.forEach(SoftiwarpMemoryRegion::close);
    }
}
