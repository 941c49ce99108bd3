package io.nvmf4j.protocol.tcp;

import io.nvmf4j.protocol.Wire;

/**
 * Why a connection must end with a TermReq PDU: its Fatal Error Status and Fatal Error Information (for a field
 * in error, the field's byte offset in the PDU header), and a sentence for the log.
 */
public record TermCause(FatalErrorStatus status, long information, String reason) {

    public TermCause {
        Wire.checkUnsigned("FEI", information, 32);
    }

    /** A header field in error at byte {@code offset}: FES 01h with FEI = the offset. */
    static TermCause field(int offset, String reason) {
        return new TermCause(FatalErrorStatus.INVALID_HEADER_FIELD, offset, reason);
    }
}
