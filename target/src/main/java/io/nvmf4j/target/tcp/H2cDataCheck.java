package io.nvmf4j.target.tcp;

import io.nvmf4j.protocol.tcp.DataPdu;
import io.nvmf4j.protocol.tcp.FatalErrorStatus;
import io.nvmf4j.protocol.tcp.TermCause;
import java.lang.foreign.MemorySegment;

/**
 * The checks of an H2CData PDU's header against the R2T it answers, nvmet-tcp's
 * {@code nvmet_tcp_handle_h2c_data_pdu()} with the FES and FEI of SPDK's {@code nvmf_tcp_h2c_data_hdr_handle()}:
 * TTAG names a command waiting for data, CCCID is that command's CID, DATAL is the data this PDU carries (and not
 * 0), DATAO continues where the previous PDU ended, and the data stays within the R2T. Allocates only to describe
 * a failure.
 */
final class H2cDataCheck {

    private H2cDataCheck() {
    }

    /** Why the connection must end, or null; {@code r} is the command TTAG names (null for none). */
    static TermCause check(MemorySegment header, TcpRequest r, long dataLength) {
        int ttag = DataPdu.transferTag(header);
        if (r == null || r.state != TcpRequest.State.WAIT_H2C) {
            return new TermCause(FatalErrorStatus.INVALID_HEADER_FIELD, DataPdu.OFFSET_TTAG, "H2CData TTAG " + ttag
                    + " names no command waiting for data");
        }
        if (DataPdu.commandId(header) != r.sqe.cid()) {
            return new TermCause(FatalErrorStatus.INVALID_HEADER_FIELD, DataPdu.OFFSET_CCCID, "H2CData CCCID "
                    + DataPdu.commandId(header) + " for TTAG " + ttag + " of CID " + r.sqe.cid());
        }
        long offset = DataPdu.dataOffset(header);
        long length = DataPdu.dataLength(header);
        if (length != dataLength || length == 0) {
            return new TermCause(FatalErrorStatus.INVALID_HEADER_FIELD, DataPdu.OFFSET_LENGTH, "H2CData DATAL "
                    + length + " where the PDU carries " + dataLength);
        }
        if (offset != r.received) {
            return new TermCause(FatalErrorStatus.DATA_OUT_OF_RANGE, DataPdu.OFFSET_OFFSET, "H2CData DATAO "
                    + offset + " where " + r.received + " was due");
        }
        if (offset + length > r.transferLength) {
            return new TermCause(FatalErrorStatus.DATA_OUT_OF_RANGE, DataPdu.OFFSET_LENGTH, "H2CData of " + length
                    + " bytes at " + offset + " beyond the R2T's " + r.transferLength);
        }
        return null;
    }
}
