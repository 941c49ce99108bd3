package io.nvmf4j.verbs.softiwarp.rdmap;

import io.nvmf4j.verbs.softiwarp.ddp.DdpTaggedHeader;
import io.nvmf4j.verbs.softiwarp.ddp.DdpUntaggedHeader;

/**
 * RDMAP opcodes (RFC 5040 4.2 / 4.4; siw {@code enum rdma_opcode}) with whether they are tagged and their full
 * header length including the MPA length field (siw {@code iwarp_pktinfo[].hdr_len}).
 */
public enum RdmapOpcode {
    RDMA_WRITE(0, true, DdpTaggedHeader.LENGTH),
    RDMA_READ_REQUEST(1, false, ReadRequestHeader.LENGTH),
    RDMA_READ_RESPONSE(2, true, DdpTaggedHeader.LENGTH),
    SEND(3, false, DdpUntaggedHeader.LENGTH),
    SEND_WITH_INVALIDATE(4, false, DdpUntaggedHeader.LENGTH),
    SEND_WITH_SOLICITED_EVENT(5, false, DdpUntaggedHeader.LENGTH),
    SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE(6, false, DdpUntaggedHeader.LENGTH),
    TERMINATE(7, false, TerminateMessage.HEADER_LENGTH);

    private static final RdmapOpcode[] BY_CODE = values();

    private final int code;
    private final boolean tagged;
    private final int headerLength;

    RdmapOpcode(int code, boolean tagged, int headerLength) {
        this.code = code;
        this.tagged = tagged;
        this.headerLength = headerLength;
    }

    public int code() {
        return code;
    }

    /** Whether the opcode travels in tagged DDP segments. */
    public boolean tagged() {
        return tagged;
    }

    /** Header length including the 2-byte MPA length (siw iwarp_pktinfo hdr_len). */
    public int headerLength() {
        return headerLength;
    }

    /** True for the four Send variants. */
    public boolean isSend() {
        return code >= 3 && code <= 6;
    }

    /** The opcode for a code, or null if unknown (8..15). */
    public static RdmapOpcode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
