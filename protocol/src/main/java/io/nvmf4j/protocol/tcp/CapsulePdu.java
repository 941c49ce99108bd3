package io.nvmf4j.protocol.tcp;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import java.lang.foreign.MemorySegment;

/**
 * The two capsule PDUs (NVMe/TCP 1.0a, 3.6.2, "CapsuleCmd PDU" and "CapsuleResp PDU"; Linux
 * {@code struct nvme_tcp_cmd_pdu} and {@code struct nvme_tcp_rsp_pdu}): after the common header, the 64-byte
 * submission queue entry (HLEN 72) with any in-capsule data at PDO, or the 16-byte completion queue entry
 * (HLEN 24). Views, not copies: the SQE and CQE are slices of the received PDU.
 */
public final class CapsulePdu {
    /** Where the SQE or CQE starts: right after the common header. */
    public static final int OFFSET_ENTRY = PduHeader.LENGTH;

    private CapsulePdu() {
    }

    /** The SQE of a CapsuleCmd PDU (a slice of {@code pdu}). */
    public static MemorySegment command(MemorySegment pdu) {
        return pdu.asSlice(OFFSET_ENTRY, SubmissionQueueEntry.SIZE);
    }

    /** The CQE of a CapsuleResp PDU (a slice of {@code pdu}). */
    public static MemorySegment response(MemorySegment pdu) {
        return pdu.asSlice(OFFSET_ENTRY, CompletionQueueEntry.SIZE);
    }

    /**
     * Writes a CapsuleCmd's common header for {@code inCapsuleData} bytes of data behind the SQE (0: none), with the
     * digests of {@code n}; returns PLEN. The SQE itself goes at {@link #OFFSET_ENTRY}, the data at
     * {@code n.dataOffset(CAPSULE_CMD)}.
     */
    public static long writeCommandHeader(MemorySegment pdu, NegotiatedParameters n, int inCapsuleData) {
        return DataPdu.writeHeader(pdu, PduType.CAPSULE_CMD, n, 0, inCapsuleData);
    }

    /** Writes a CapsuleResp's common header; returns PLEN. The CQE goes at {@link #OFFSET_ENTRY}. */
    public static long writeResponseHeader(MemorySegment pdu, NegotiatedParameters n) {
        return DataPdu.writeHeader(pdu, PduType.CAPSULE_RESP, n, 0, 0);
    }
}
