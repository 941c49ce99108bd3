package io.nvmf4j.target.rdma;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.sgl.SglDescriptor;
import io.nvmf4j.target.DataDirection;
import java.lang.foreign.MemorySegment;

/**
 * Reads SGL1 of a command capsule and decides where the command's data comes from or goes to, like
 * {@code nvmet_rdma_map_sgl()} (Linux drivers/nvme/target/rdma.c) and SPDK's {@code nvmf_rdma_request_parse_sgl()}:
 *
 * <ul>
 *   <li>keyed data block (4h), subtype address (0h) or invalidate key (Fh): the host's registered buffer, reached by
 *       RDMA Read (host-to-controller data) or RDMA Write (controller-to-host data); with Fh the key is invalidated
 *       by the response's Send with Invalidate (nvmet_rdma_map_sgl_keyed());</li>
 *   <li>data block (0h) with the offset subtype (1h): in-capsule data behind the SQE; only for writes, and offset +
 *       length must lie within the in-capsule data (nvmet_rdma_map_sgl_inline());</li>
 *   <li>anything else: Invalid Field (a wrong subtype) or SGL Descriptor Type Invalid, with DNR and the data pointer
 *       as error location.</li>
 * </ul>
 *
 * Reads the descriptor's bytes in place (no descriptor object per command: this runs for every I/O). Runs on the
 * poll group's thread, in the NEW step of {@link RdmaQueue#process}.
 */
final class SglMapping {

    private static final int DPTR = SubmissionQueueEntry.OFFSET_DPTR;

    private SglMapping() {
    }

    /**
     * Fills {@code r.transferLength}, {@code inCapsule}, the remote address/key and the invalidate flag from SGL1.
     *
     * @param inlineDataSize the port's in-capsule data size (what IOCCSZ advertises)
     * @param maxTransfer    the largest transfer this queue serves (MDTS, and the largest pool buffer)
     * @return success, or the status to complete the command with ({@code r.request.errorLocation} set)
     */
    static Status map(RdmaRequest r, DataDirection direction, int inlineDataSize, long maxTransfer) {
        MemorySegment sqe = r.request.sqe().segment();
        int identifier = SglDescriptor.identifierAt(sqe, DPTR);
        int type = identifier >>> 4;
        int subtype = identifier & 0xF;
        long address = SglDescriptor.addressAt(sqe, DPTR);
        switch (type) {
            case SglDescriptor.TYPE_KEYED_DATA_BLOCK -> {
                if (subtype != SglDescriptor.SUBTYPE_ADDRESS && subtype != SglDescriptor.SUBTYPE_INVALIDATE_KEY) {
                    return invalid(r, StatusCode.INVALID_FIELD, DPTR);
                }
                int length = SglDescriptor.keyedLengthAt(sqe, DPTR);
                int key = SglDescriptor.keyAt(sqe, DPTR);
                if (length == 0) {
                    // no data command (Linux hosts send a null keyed SGL: address, length and key 0); like
                    // nvmet_rdma_map_sgl_keyed(), an invalidate subtype on it is ignored
                    return Status.SUCCESS;
                }
                if (direction == DataDirection.NONE || direction == DataDirection.BIDIRECTIONAL
                        || length > maxTransfer) {
                    // a command without data that describes some, or more than MDTS / the largest buffer
                    return invalid(r, StatusCode.SGL_INVALID_DATA, DPTR);
                }
                r.transferLength = length;
                r.remoteAddress = address;
                r.remoteKey = key;
                r.invalidateKey = subtype == SglDescriptor.SUBTYPE_INVALIDATE_KEY;
                return Status.SUCCESS;
            }
            case SglDescriptor.TYPE_DATA_BLOCK -> {
                if (subtype != SglDescriptor.SUBTYPE_OFFSET) {
                    return invalid(r, StatusCode.INVALID_FIELD, DPTR);
                }
                long length = SglDescriptor.lengthAt(sqe, DPTR);
                if (direction != DataDirection.HOST_TO_CONTROLLER) {
                    // in-capsule data only carries writes (nvmet_rdma_map_sgl_inline: error_loc = opcode)
                    return invalid(r, StatusCode.INVALID_FIELD, SubmissionQueueEntry.OFFSET_OPCODE);
                }
                if (Long.compareUnsigned(address, inlineDataSize) > 0 || address + length > inlineDataSize
                        || address + length > r.inCapsuleBytes) {
                    return invalid(r, StatusCode.SGL_INVALID_OFFSET, DPTR);
                }
                if (length == 0) {
                    return Status.SUCCESS;
                }
                r.transferLength = (int) length;
                r.remoteAddress = address; // the offset into the in-capsule data
                r.inCapsule = true;
                return Status.SUCCESS;
            }
            default -> {
                return invalid(r, StatusCode.SGL_INVALID_TYPE, DPTR);
            }
        }
    }

    private static Status invalid(RdmaRequest r, StatusCode code, int errorLocation) {
        r.request.errorLocation(errorLocation);
        return code.withDnr();
    }
}
