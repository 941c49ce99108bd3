package io.nvmf4j.initiator.tcp;

import io.nvmf4j.protocol.tcp.FatalErrorStatus;
import io.nvmf4j.protocol.tcp.TermCause;
import java.io.IOException;
import java.io.Serial;

/**
 * A PDU from the controller that the host cannot accept: the connection ends, after an H2CTermReq naming
 * {@link #cause} when {@link #sendTermReq} (a header field or data range the host rejects, as the fatal errors of
 * NVMe/TCP 1.0a, 3.6.2.5), or without one (the controller ended it with its own C2HTermReq).
 */
final class PduException extends IOException {

    @Serial
    private static final long serialVersionUID = 1L;

    final transient TermCause cause;
    final boolean sendTermReq;

    PduException(TermCause cause, boolean sendTermReq) {
        super(cause.reason());
        this.cause = cause;
        this.sendTermReq = sendTermReq;
    }

    /** The field at {@code offset} of the PDU header is wrong. */
    static PduException field(int offset, String reason) {
        return new PduException(new TermCause(FatalErrorStatus.INVALID_HEADER_FIELD, offset, reason), true);
    }

    /** DATAO/DATAL or R2TO/R2TL outside the command's data. */
    static PduException outOfRange(String reason) {
        return new PduException(new TermCause(FatalErrorStatus.DATA_OUT_OF_RANGE, 0, reason), true);
    }
}
