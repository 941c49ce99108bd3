package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.softiwarp.rdmap.TerminateCodes;

/**
 * Outcome of checking an access against a memory region, mirroring siw_check_mem() / siw_check_sge() and siw's
 * {@code enum siw_access_state}, with the Terminate codes siw_tagged_error() and siw_rdmap_error() map them to.
 */
public enum MemoryCheck {
    OK(-1, -1),
    STAG_INVALID(TerminateCodes.DDP_ECODE_T_INVALID_STAG, TerminateCodes.RDMAP_ECODE_INVALID_STAG),
    BASE_BOUNDS(TerminateCodes.DDP_ECODE_T_BASE_BOUNDS, TerminateCodes.RDMAP_ECODE_BASE_BOUNDS),
    PD_MISMATCH(TerminateCodes.DDP_ECODE_T_STAG_NOT_ASSOC, TerminateCodes.RDMAP_ECODE_STAG_NOT_ASSOC),
    /** RFC 5041 lacks a code for missing rights: siw reports "invalid STag" at the DDP layer. */
    ACCESS_PERM(TerminateCodes.DDP_ECODE_T_INVALID_STAG, TerminateCodes.RDMAP_ECODE_ACCESS_RIGHTS);

    private final int ddpTaggedCode;
    private final int rdmapCode;

    MemoryCheck(int ddpTaggedCode, int rdmapCode) {
        this.ddpTaggedCode = ddpTaggedCode;
        this.rdmapCode = rdmapCode;
    }

    /** siw_tagged_error(). */
    public int ddpTaggedCode() {
        return ddpTaggedCode;
    }

    /** siw_rdmap_error(). */
    public int rdmapCode() {
        return rdmapCode;
    }
}
