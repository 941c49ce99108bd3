package io.nvmf4j.verbs.softiwarp.rdmap;

import io.nvmf4j.verbs.softiwarp.ddp.DdpHeader;
import io.nvmf4j.verbs.softiwarp.ddp.DdpUntaggedHeader;

import java.nio.ByteBuffer;

/**
 * The RDMA Read Request (RFC 5040 4.4 Figure 9; siw {@code struct iwarp_rdma_rreq}): an untagged DDP segment on
 * QN 1 whose payload is the RDMAP header: Data Sink STag, Data Sink Tagged Offset, RDMA Read Message Size, Data
 * Source STag, Data Source Tagged Offset. 48 bytes including the MPA length, no further payload.
 */
public final class ReadRequestHeader {
    private ReadRequestHeader() {
    }

    public static final int OFFSET_SINK_STAG = 20;
    public static final int OFFSET_SINK_TO = 24;
    public static final int OFFSET_READ_SIZE = 32;
    public static final int OFFSET_SOURCE_STAG = 36;
    public static final int OFFSET_SOURCE_TO = 40;
    public static final int LENGTH = 48;
    /** Bytes of RDMAP header carried as DDP payload. */
    public static final int RDMAP_LENGTH = LENGTH - DdpUntaggedHeader.LENGTH;

    public static void encode(ByteBuffer out, int msn, int sinkStag, long sinkTo, int readSize, int sourceStag,
                              long sourceTo) {
        DdpUntaggedHeader.encode(out, RdmapOpcode.RDMA_READ_REQUEST.code(), true, 0,
                DdpUntaggedHeader.QN_READ_REQUEST, msn, 0, RDMAP_LENGTH);
        out.putInt(OFFSET_SINK_STAG, sinkStag);
        out.putLong(OFFSET_SINK_TO, sinkTo);
        out.putInt(OFFSET_READ_SIZE, readSize);
        out.putInt(OFFSET_SOURCE_STAG, sourceStag);
        out.putLong(OFFSET_SOURCE_TO, sourceTo);
    }

    public static int sinkStag(ByteBuffer fpdu) {
        return fpdu.getInt(OFFSET_SINK_STAG);
    }

    public static long sinkTo(ByteBuffer fpdu) {
        return fpdu.getLong(OFFSET_SINK_TO);
    }

    public static int readSize(ByteBuffer fpdu) {
        return fpdu.getInt(OFFSET_READ_SIZE);
    }

    public static int sourceStag(ByteBuffer fpdu) {
        return fpdu.getInt(OFFSET_SOURCE_STAG);
    }

    public static long sourceTo(ByteBuffer fpdu) {
        return fpdu.getLong(OFFSET_SOURCE_TO);
    }

    /** The MPA length a well-formed Read Request carries. */
    public static int mpaLength() {
        return LENGTH - DdpHeader.MPA_HEADER_LENGTH;
    }
}
