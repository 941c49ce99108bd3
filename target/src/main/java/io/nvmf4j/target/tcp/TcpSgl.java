package io.nvmf4j.target.tcp;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.sgl.SglDescriptor;
import io.nvmf4j.target.DataDirection;
import java.lang.foreign.MemorySegment;

/**
 * Reads SGL1 of a CapsuleCmd and decides where the command's data is, like {@code nvmet_tcp_map_data()} (Linux
 * drivers/nvme/target/tcp.c) and SPDK's {@code nvmf_tcp_req_parse_sgl()}:
 * <ul>
 *   <li>data block (0h) with the offset subtype (1h): in-capsule data behind the SQE; only for writes, and offset +
 *       length within both the port's in-capsule data size and the data the capsule carried;</li>
 *   <li>transport data block (5h) with the transport-specific subtype (Ah): data moved by R2T/H2CData (writes) or
 *       C2HData (reads), at most the largest transfer; length 0 for a command without data (Linux
 *       {@code nvme_tcp_set_sg_null()});</li>
 *   <li>anything else: Invalid Field (a wrong subtype) or SGL Descriptor Type Invalid, with DNR and the data pointer
 *       as error location.</li>
 * </ul>
 * Reads the descriptor's bytes in place: nothing allocated per command.
 */
final class TcpSgl {

    private static final int DPTR = SubmissionQueueEntry.OFFSET_DPTR;

    private TcpSgl() {
    }

    /** Fills {@code r.transferLength} and the in-capsule fields; success or the status to fail the command with. */
    static Status map(TcpRequest r, DataDirection direction, int inlineDataSize, long maxTransfer) {
        MemorySegment sqe = r.sqeMemory;
        int identifier = SglDescriptor.identifierAt(sqe, DPTR);
        int type = identifier >>> 4;
        int subtype = identifier & 0xF;
        long address = SglDescriptor.addressAt(sqe, DPTR);
        long length = SglDescriptor.lengthAt(sqe, DPTR);
        r.usesInCapsule = false;
        r.transferLength = 0;
        switch (type) {
            case SglDescriptor.TYPE_DATA_BLOCK -> {
                if (subtype != SglDescriptor.SUBTYPE_OFFSET) {
                    return invalid(r, StatusCode.INVALID_FIELD, DPTR);
                }
                if (direction != DataDirection.HOST_TO_CONTROLLER) {
                    return invalid(r, StatusCode.INVALID_FIELD, SubmissionQueueEntry.OFFSET_OPCODE);
                }
                if (Long.compareUnsigned(address, inlineDataSize) > 0 || address + length > inlineDataSize
                        || address + length > r.inCapsuleBytes) {
                    return invalid(r, StatusCode.SGL_INVALID_OFFSET, DPTR);
                }
                r.transferLength = (int) length;
                r.inCapsuleOffset = (int) address;
                r.usesInCapsule = length > 0;
                return Status.SUCCESS;
            }
            case SglDescriptor.TYPE_TRANSPORT_DATA_BLOCK -> {
                if (subtype != SglDescriptor.SUBTYPE_TRANSPORT_SPECIFIC) {
                    return invalid(r, StatusCode.INVALID_FIELD, DPTR);
                }
                if (length == 0) {
                    return Status.SUCCESS;
                }
                if (direction == DataDirection.NONE || direction == DataDirection.BIDIRECTIONAL
                        || length > maxTransfer) {
                    return invalid(r, StatusCode.SGL_INVALID_DATA, DPTR);
                }
                r.transferLength = (int) length;
                return Status.SUCCESS;
            }
            default -> {
                return invalid(r, StatusCode.SGL_INVALID_TYPE, DPTR);
            }
        }
    }

    private static Status invalid(TcpRequest r, StatusCode code, int errorLocation) {
        r.request.errorLocation(errorLocation);
        return code.withDnr();
    }
}
