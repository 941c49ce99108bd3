package io.nvmf4j.verbs.provider;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import java.util.Set;

/**
 * The checks every provider makes before binding a memory window (IBA 10.6.7.2 "Bind Memory Window"; what
 * {@link io.nvmf4j.verbs.MemoryWindow#bind} promises): a valid region of the window's own protection domain
 * (a region of another provider never is), registered with MW_BIND; the slice is a non-empty part of the region,
 * the rights are remote ones only, and remote write needs local write on the region.
 */
public final class WindowBinding {
    private WindowBinding() {
    }

    /** All the checks, in IBA order: region and domain (INVALID_KEY), then MW_BIND, slice and rights. */
    public static void check(MemoryRegion region, ProtectionDomain pd, long offset, long length,
                             Set<AccessFlag> remoteAccess) throws VerbsException {
        if (region.protectionDomain() != pd || !region.isValid()) {
            throw new VerbsException(VerbsErrorCode.INVALID_KEY,
                    "a window binds only to a valid region of its own protection domain");
        }
        if (!region.accessFlags().contains(AccessFlag.MW_BIND)) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "the region was registered without MW_BIND");
        }
        checkSliceAndRights(region, offset, length, remoteAccess);
    }

    private static void checkSliceAndRights(MemoryRegion region, long offset, long length,
                                           Set<AccessFlag> remoteAccess) throws VerbsException {
        if (offset < 0 || length <= 0 || offset > region.length() || length > region.length() - offset) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "window [" + offset + ", +" + length
                    + ") is not a non-empty slice of a region of " + region.length() + " bytes");
        }
        boolean read = remoteAccess.contains(AccessFlag.REMOTE_READ);
        boolean write = remoteAccess.contains(AccessFlag.REMOTE_WRITE);
        if ((!read && !write) || remoteAccess.contains(AccessFlag.LOCAL_WRITE)
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
