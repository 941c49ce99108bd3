package io.nvmf4j.protocol.tcp;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The common header (CH) every NVMe/TCP PDU starts with, 8 bytes (NVMe/TCP 1.0a, 3.6.2; Linux
 * {@code struct nvme_tcp_hdr}, SPDK {@code struct spdk_nvme_tcp_common_pdu_hdr}): PDU-Type, FLAGS, HLEN (the
 * PDU-specific header's end), PDO (where the PDU data starts, 0 without data), PLEN (the whole PDU: header, header
 * digest, pad, data, data digest). Static accessors over the received bytes, nothing allocated per PDU.
 *
 * <p>{@link #check} is the first thing a receiver does with a header, before it reads a byte more: every length the
 * peer claims is held against what the PDU type allows and what this side agreed to take, so that a hostile PLEN
 * can neither make the reader buffer more than its bound nor place data outside the PDU (the checks of Linux
 * {@code nvmet_tcp_try_recv_pdu()}/{@code nvme_tcp_recv_pdu()} and SPDK {@code nvmf_tcp_pdu_ch_handle()}).
 */
public final class PduHeader {
    public static final int LENGTH = 8;
    public static final int OFFSET_TYPE = 0;
    public static final int OFFSET_FLAGS = 1;
    public static final int OFFSET_HLEN = 2;
    public static final int OFFSET_PDO = 3;
    public static final int OFFSET_PLEN = 4;

    /** HDGSTF: a header digest follows the PDU header. */
    public static final int FLAG_HDGST = 1;
    /** DDGSTF: a data digest follows the PDU data. */
    public static final int FLAG_DDGST = 1 << 1;
    /** LAST_PDU (H2CData, C2HData): the last data PDU of the R2T or of the command's data. */
    public static final int FLAG_LAST_PDU = 1 << 2;
    /** SUCCESS (C2HData, with LAST_PDU): the command succeeded; no CapsuleResp follows. */
    public static final int FLAG_SUCCESS = 1 << 3;
    /** HDGST and DDGST: CRC32C, 4 bytes. */
    public static final int DIGEST_LENGTH = 4;

    private PduHeader() {
    }

    public static int type(MemorySegment pdu) {
        return Wire.u8(pdu, OFFSET_TYPE);
    }

    public static int flags(MemorySegment pdu) {
        return Wire.u8(pdu, OFFSET_FLAGS);
    }

    public static int headerLength(MemorySegment pdu) {
        return Wire.u8(pdu, OFFSET_HLEN);
    }

    public static int dataOffset(MemorySegment pdu) {
        return Wire.u8(pdu, OFFSET_PDO);
    }

    public static long length(MemorySegment pdu) {
        return Wire.u32(pdu, OFFSET_PLEN);
    }

    /** Writes a common header: HLEN from the type. */
    public static void write(MemorySegment pdu, PduType type, int flags, int dataOffset, long length) {
        Wire.u8(pdu, OFFSET_TYPE, type.code());
        Wire.u8(pdu, OFFSET_FLAGS, flags);
        Wire.u8(pdu, OFFSET_HLEN, type.headerLength());
        Wire.u8(pdu, OFFSET_PDO, dataOffset);
        Wire.u32(pdu, OFFSET_PLEN, length);
    }

    /** Whether PDUs of {@code type} may carry PDU data (at PDO). */
    public static boolean carriesData(PduType type) {
        return type == PduType.CAPSULE_CMD || type == PduType.H2C_DATA || type == PduType.C2H_DATA;
    }

    /**
     * Checks the 8 header bytes of a PDU received after connection initialization by the side that is
     * {@code receiverIsHost} or the controller, against what the connection negotiated and the largest PDU this
     * side reads ({@code maxLength}: its capsule and data limits). Returns null when the header may be read on, or
     * why the connection must end.
     */
    public static TermCause check(MemorySegment pdu, NegotiatedParameters n, boolean receiverIsHost,
            long maxLength) {
        PduType type = PduType.of(type(pdu));
        if (type == null || type.fromHost() == receiverIsHost) {
            return TermCause.field(OFFSET_TYPE, "PDU type " + type(pdu) + " is not one the "
                    + (receiverIsHost ? "host" : "controller") + " receives");
        }
        if (type == PduType.IC_REQ || type == PduType.IC_RESP) {
            return new TermCause(FatalErrorStatus.PDU_SEQUENCE_ERROR, 0, type + " after the connection was set up");
        }
        int hlen = headerLength(pdu);
        if (hlen != type.headerLength()) {
            return TermCause.field(OFFSET_HLEN, type + " with HLEN " + hlen + ", not " + type.headerLength());
        }
        int flags = flags(pdu);
        boolean isTerm = type == PduType.H2C_TERM_REQ || type == PduType.C2H_TERM_REQ;
        // a TermReq never has digests (the peer may not have agreed on any); every other PDU has HDGST iff agreed
        if (!isTerm && ((flags & FLAG_HDGST) != 0) != n.headerDigest()) {
            return TermCause.field(OFFSET_FLAGS, type + " with HDGSTF " + ((flags & FLAG_HDGST) != 0)
                    + " where the connection agreed " + n.headerDigest());
        }
        long plen = length(pdu);
        int headerEnd = hlen + (isTerm ? 0 : n.headerDigestLength());
        if (plen < headerEnd || plen > maxLength) {
            return TermCause.field(OFFSET_PLEN, type + " with PLEN " + plen + " outside " + headerEnd + ".."
                    + maxLength);
        }
        int pdo = dataOffset(pdu);
        if (plen == headerEnd || isTerm) {
            if ((flags & FLAG_DDGST) != 0) {
                return TermCause.field(OFFSET_FLAGS, type + " without data has DDGSTF set");
            }
            return null;
        }
        if (!carriesData(type)) {
            return TermCause.field(OFFSET_PLEN, type + " carries no data, yet PLEN " + plen + " > " + headerEnd);
        }
        if (((flags & FLAG_DDGST) != 0) != n.dataDigest()) {
            return TermCause.field(OFFSET_FLAGS, type + " with DDGSTF " + ((flags & FLAG_DDGST) != 0)
                    + " where the connection agreed " + n.dataDigest());
        }
        int align = n.alignment(type.fromHost());
        if (pdo < headerEnd || pdo % align != 0 || pdo + n.dataDigestLength() >= plen) {
            return TermCause.field(OFFSET_PDO, type + " with PDO " + pdo + " (header ends at " + headerEnd
                    + ", alignment " + align + ", PLEN " + plen + ")");
        }
        return null;
    }

    /** The PDU data's length: PLEN less everything before PDO and the data digest. */
    public static long dataLength(MemorySegment pdu, NegotiatedParameters n) {
        int pdo = dataOffset(pdu);
        return pdo == 0 ? 0 : length(pdu) - pdo - n.dataDigestLength();
    }
}
