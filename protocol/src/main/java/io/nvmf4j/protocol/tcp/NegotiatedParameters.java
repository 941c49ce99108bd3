package io.nvmf4j.protocol.tcp;

import io.nvmf4j.protocol.Wire;

/**
 * What one NVMe/TCP connection's ICReq and ICResp settled (NVMe/TCP 1.0a, 3.3 and 3.6.2): whether each PDU carries
 * a header digest and each PDU with data a data digest, the data alignment each side asked of the other, the
 * largest H2CData PDU data the controller takes and the R2Ts a command may have outstanding.
 *
 * @param headerDigest whether HDGST is on (both sides asked and agreed in DGST bit 0)
 * @param dataDigest   whether DDGST is on (DGST bit 1)
 * @param hpda         Host PDU Data Alignment, 0's based dwords: the alignment of data in PDUs the controller sends
 * @param cpda         Controller PDU Data Alignment, 0's based dwords: the alignment of data in PDUs the host sends
 * @param maxH2cData   MAXH2CDATA: the most PDU data bytes in one H2CData PDU (a multiple of 4, at least 4,096)
 * @param maxR2t       MAXR2T as the host sent it, 0's based: R2Ts one command may have outstanding, minus one
 */
public record NegotiatedParameters(boolean headerDigest, boolean dataDigest, int hpda, int cpda, long maxH2cData,
                                   long maxR2t) {

    /** The smallest MAXH2CDATA a controller may answer with (Linux {@code NVME_TCP_MIN_MAXH2CDATA}). */
    public static final int MIN_MAX_H2C_DATA = 4096;

    public NegotiatedParameters {
        if (hpda < 0 || hpda > IcReq.MAX_PDA || cpda < 0 || cpda > IcReq.MAX_PDA) {
            throw new IllegalArgumentException("HPDA " + hpda + " / CPDA " + cpda + " outside 0.." + IcReq.MAX_PDA);
        }
        Wire.checkUnsigned("MAXH2CDATA", maxH2cData, 32);
        if (maxH2cData < MIN_MAX_H2C_DATA || maxH2cData % 4 != 0) {
            throw new IllegalArgumentException("MAXH2CDATA " + maxH2cData + " is not a multiple of 4 of at least "
                    + MIN_MAX_H2C_DATA);
        }
        Wire.checkUnsigned("MAXR2T", maxR2t, 32);
    }

    /** Header digest bytes after each PDU header: 4 or 0. */
    public int headerDigestLength() {
        return headerDigest ? PduHeader.DIGEST_LENGTH : 0;
    }

    /** Data digest bytes after the data of a PDU that has data: 4 or 0. */
    public int dataDigestLength() {
        return dataDigest ? PduHeader.DIGEST_LENGTH : 0;
    }

    /** Bytes at which data starts in PDUs sent by the host ({@code fromHost}) or the controller. */
    public int alignment(boolean fromHost) {
        return ((fromHost ? cpda : hpda) + 1) * 4;
    }

    /** PDO of a PDU of {@code type} that carries data: the header and its digest, rounded up to the alignment. */
    public int dataOffset(PduType type) {
        int align = alignment(type.fromHost());
        int end = type.headerLength() + headerDigestLength();
        return (end + align - 1) / align * align;
    }
}
