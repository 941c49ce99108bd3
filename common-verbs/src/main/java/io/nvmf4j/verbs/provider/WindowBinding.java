package io.nvmf4j.verbs.provider;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import java.util.Set;

/**
 * The checks every provider makes before binding a memory window (IBA 10.6.7.2 "Bind Memory Window"; what
 * {@link io.nvmf4j.verbs.MemoryWindow#bind} promises): the slice is a non-empty part of the region, the rights are
 * remote ones only, and remote write needs local write on the region. The caller checks the protection domain and
 * MW_BIND first (it knows its own region type).
 */
public final class WindowBinding {
    private WindowBinding() {
    }

    public static void checkSliceAndRights(MemoryRegion region, long offset, long length,
                                           Set<AccessFlag> remoteAccess) throws VerbsException {
        if (offset < 0 || length <= 0 || offset > region.length() || length > region.length() - offset) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "window [" + offset + ", +" + length
                    + ") is not a non-empty slice of a region of " + region.length() + " bytes");
        }
        boolean read = remoteAccess.contains(AccessFlag.REMOTE_READ);
        boolean write = remoteAccess.contains(AccessFlag.REMOTE_WRITE);
        if (!read && !write || remoteAccess.contains(AccessFlag.LOCAL_WRITE)
                || remoteAccess.contains(AccessFlag.MW_BIND)) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT,
                    "a window's rights are REMOTE_READ and/or REMOTE_WRITE: " + remoteAccess);
        }
        if (write && !region.accessFlags().contains(AccessFlag.LOCAL_WRITE)) {
            // IBA: binding remote write access needs local write on the region (as REMOTE_WRITE at registration)
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "REMOTE_WRITE window on a region without"
                    + " LOCAL_WRITE");
        }
    }
}
