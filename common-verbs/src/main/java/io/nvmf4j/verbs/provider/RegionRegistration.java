package io.nvmf4j.verbs.provider;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

/**
 * The checks every provider makes before registering memory (what {@code ibv_reg_mr} refuses with EINVAL, said
 * before any native call or STag is spent): native, non-empty memory, and REMOTE_WRITE only with LOCAL_WRITE
 * (IBA 10.6.3.1 / ibv_reg_mr(3): remote write access needs local write access). The caller checks its
 * protection domain is open.
 */
public final class RegionRegistration {
    private RegionRegistration() {
    }

    /** Returns the access rights as a set of the caller's own (the argument may change after the call). */
    public static Set<AccessFlag> check(MemorySegment segment, Set<AccessFlag> access) throws VerbsException {
        if (!segment.isNative()) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT,
                    "only native (off-heap) memory segments can be registered");
        }
        if (segment.byteSize() == 0) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "cannot register an empty segment");
        }
        Set<AccessFlag> flags = access.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : EnumSet.copyOf(access);
        if (flags.contains(AccessFlag.REMOTE_WRITE) && !flags.contains(AccessFlag.LOCAL_WRITE)) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT,
                    "REMOTE_WRITE requires LOCAL_WRITE (as ibv_reg_mr)");
        }
        return flags;
    }
}
