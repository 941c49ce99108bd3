package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.provider.RegionRegistration;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** A protection domain: regions are checked against the queue pair's domain on every access (siw_check_mem). */
public final class SoftiwarpProtectionDomain implements ProtectionDomain {
    private final SoftiwarpDevice device;
    /** Regions and windows registered here; windows are closed first when the domain closes. */
    private final List<StagEntry> entries = new ArrayList<>();
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
        return register(nativeSegment, null, access);
    }

    /**
     * Keeps a slice of the buffer beside the region: views of it have no memory-segment scope, so the transmitter
     * gathers them into one write without allocating (package-info, "Data path allocation").
     */
    @Override
    public MemoryRegion register(ByteBuffer directBuffer, Set<AccessFlag> access) throws VerbsException {
        if (!directBuffer.isDirect()) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "only direct buffers can be registered");
        }
        return register(MemorySegment.ofBuffer(directBuffer), directBuffer.slice(), access);
    }

    private MemoryRegion register(MemorySegment nativeSegment, ByteBuffer plain, Set<AccessFlag> access)
            throws VerbsException {
        Set<AccessFlag> flags = RegionRegistration.check(nativeSegment, access);
        synchronized (this) {
            if (closed) {
                throw new VerbsException(VerbsErrorCode.CLOSED, "protection domain is closed");
            }
            SoftiwarpMemoryRegion region = new SoftiwarpMemoryRegion(this, device.stagTable(), nativeSegment, plain,
                    flags);
            entries.add(region);
            return region;
        }
    }

    @Override
    public MemoryWindow allocateWindow() throws VerbsException {
        synchronized (this) {
            if (closed) {
                throw new VerbsException(VerbsErrorCode.CLOSED, "protection domain is closed");
            }
            SoftiwarpMemoryWindow window = new SoftiwarpMemoryWindow(this, device.stagTable());
            entries.add(window);
            return window;
        }
    }

    synchronized void forget(StagEntry entry) {
        entries.remove(entry);
    }

    @Override
    public void close() {
        List<StagEntry> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(entries);
        }
        for (StagEntry e : toClose) {
            if (e instanceof SoftiwarpMemoryWindow w) {
                w.close();
            }
        }
        for (StagEntry e : toClose) {
            if (e instanceof SoftiwarpMemoryRegion r) {
                r.close();
            }
        }
    }
}
