package io.nvmf4j.protocol.tcp;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The PDUs that move a command's data, each with a 24-byte header (NVMe/TCP 1.0a, 3.6.2, "H2CData PDU", "C2HData
 * PDU", "R2T PDU"; Linux {@code struct nvme_tcp_data_pdu} and {@code struct nvme_tcp_r2t_pdu}, SPDK
 * {@code spdk_nvme_tcp_h2c_data_hdr}, {@code spdk_nvme_tcp_c2h_data_hdr}, {@code spdk_nvme_tcp_r2t_hdr}): CCCID at 8
 * (the command's CID), TTAG at 10 (the controller's transfer tag of an R2T, echoed by each H2CData that answers it;
 * reserved in C2HData), then an offset and a length into the command's data at 12 and 16 (DATAO/DATAL for data
 * PDUs, R2TO/R2TL for an R2T), bytes 20..23 reserved. Static accessors: nothing allocated per PDU.
 */
public final class DataPdu {
    public static final int OFFSET_CCCID = 8;
    public static final int OFFSET_TTAG = 10;
    /** DATAO, or R2TO in an R2T. */
    public static final int OFFSET_OFFSET = 12;
    /** DATAL, or R2TL in an R2T. */
    public static final int OFFSET_LENGTH = 16;

    private DataPdu() {
    }

    public static int commandId(MemorySegment pdu) {
        return Wire.u16(pdu, OFFSET_CCCID);
    }

    public static int transferTag(MemorySegment pdu) {
        return Wire.u16(pdu, OFFSET_TTAG);
    }

    /** DATAO (or R2TO): where in the command's data this PDU's bytes go. */
    public static long dataOffset(MemorySegment pdu) {
        return Wire.u32(pdu, OFFSET_OFFSET);
    }

    /** DATAL (or R2TL). */
    public static long dataLength(MemorySegment pdu) {
        return Wire.u32(pdu, OFFSET_LENGTH);
    }

    /**
     * Writes a whole H2CData or C2HData header for {@code length} bytes at {@code offset} of command
     * {@code commandId}'s data; returns PLEN (header, digests, pad, data).
     */
    public static long writeData(MemorySegment pdu, PduType type, NegotiatedParameters n, int flags, int commandId,
            int transferTag, long offset, int length) {
        if (type != PduType.H2C_DATA && type != PduType.C2H_DATA) {
            throw new IllegalArgumentException(type + " is not a data PDU");
        }
        long plen = writeHeader(pdu, type, n, flags, length);
        fields(pdu, commandId, type == PduType.H2C_DATA ? transferTag : 0, offset, length);
        return plen;
    }

    /** Writes an R2T: the controller asks for {@code length} bytes at {@code offset} under {@code transferTag}. */
    public static long writeR2t(MemorySegment pdu, NegotiatedParameters n, int commandId, int transferTag,
            long offset, long length) {
        long plen = writeHeader(pdu, PduType.R2T, n, 0, 0);
        fields(pdu, commandId, transferTag, offset, length);
        return plen;
    }

    private static void fields(MemorySegment pdu, int commandId, int transferTag, long offset, long length) {
        Wire.u16(pdu, OFFSET_CCCID, commandId);
        Wire.u16(pdu, OFFSET_TTAG, transferTag);
        Wire.u32(pdu, OFFSET_OFFSET, offset);
        Wire.u32(pdu, OFFSET_LENGTH, length);
        Wire.u32(pdu, 20, 0);
    }

    /**
     * The common header of a PDU of {@code type} with {@code dataLength} bytes of PDU data: HDGSTF/DDGSTF as
     * negotiated, PDO at the aligned end of the header (0 without data), PLEN over all of it; returns PLEN.
     */
    static long writeHeader(MemorySegment pdu, PduType type, NegotiatedParameters n, int flags, int dataLength) {
        int f = flags | (n.headerDigest() ? PduHeader.FLAG_HDGST : 0);
        long plen = (long) type.headerLength() + n.headerDigestLength();
        int pdo = 0;
        if (dataLength > 0) {
            pdo = n.dataOffset(type);
            f |= n.dataDigest() ? PduHeader.FLAG_DDGST : 0;
            plen = pdo + (long) dataLength + n.dataDigestLength();
        }
        PduHeader.write(pdu, type, f, pdo, plen);
        return plen;
    }
}
