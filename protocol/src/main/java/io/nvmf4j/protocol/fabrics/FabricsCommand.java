package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;

/**
 * A fabrics command: opcode 7Fh, byte 1 reserved (PSDT), bytes 3:2 CID, byte 4 FCTYPE, bytes 39:24 SGL1, bytes
 * 63:40 type specific (NVMe-oF 1.1, "Fabrics Command"; Linux {@code struct nvmf_common_command}).
 */
public sealed interface FabricsCommand permits ConnectCommand, PropertyGetCommand, PropertySetCommand,
        DisconnectCommand, AuthenticationSendCommand, AuthenticationReceiveCommand {

    int OFFSET_OPCODE = SubmissionQueueEntry.OFFSET_OPCODE;
    int OFFSET_FCTYPE = 4;
    int OFFSET_SGL1 = SubmissionQueueEntry.OFFSET_DPTR;

    /**
     * SGL1 for a command without data: a keyed data block descriptor with zero address, length and key (identifier
     * 40h). Linux hosts send this ({@code nvme_rdma_set_sg_null()}), and Linux nvmet-rdma refuses an all-zero SGL1
     * (data block, address subtype) with Invalid Field, so it is also what we send.
     */
    KeyedSglDescriptor NULL_SGL = new KeyedSglDescriptor(0, 0, 0, false);

    CommandId cid();

    FabricsCommandType fctype();

    /**
     * Writes the whole 64-byte command into {@code sqe} (clearing it first): opcode 7Fh, PSDT 01b in byte 1 as the
     * Linux RDMA host sets it ({@code NVME_CMD_SGL_METABUF}, required by {@code nvmet_req_init()}), CID, FCTYPE
     * and the type-specific fields.
     */
    void encode(SubmissionQueueEntry sqe);

    /** Decodes whichever fabrics command {@code sqe} holds. */
    static FabricsCommand decode(SubmissionQueueEntry sqe) {
        return switch (typeOf(sqe)) {
            case CONNECT -> ConnectCommand.decode(sqe);
            case PROPERTY_GET -> PropertyGetCommand.decode(sqe);
            case PROPERTY_SET -> PropertySetCommand.decode(sqe);
            case DISCONNECT -> DisconnectCommand.decode(sqe);
            case AUTH_SEND -> AuthenticationSendCommand.decode(sqe);
            case AUTH_RECEIVE -> AuthenticationReceiveCommand.decode(sqe);
        };
    }

    /**
     * The FCTYPE byte of a fabrics SQE as it is, defined or not (a controller answers an unknown one with a status);
     * reads in place, no allocation.
     */
    static int fctypeOf(SubmissionQueueEntry sqe) {
        return Wire.u8(sqe.segment(), OFFSET_FCTYPE);
    }

    /** The FCTYPE of a fabrics command; fails when the opcode is not 7Fh or the FCTYPE is not defined. */
    static FabricsCommandType typeOf(SubmissionQueueEntry sqe) {
        if (sqe.opcode() != FabricsCommandType.OPCODE) {
            throw new MalformedStructureException(String.format(
                    "SQE byte 0 (opcode): %02xh is not the fabrics opcode 7Fh", sqe.opcode()), OFFSET_OPCODE);
        }
        int fctype = fctypeOf(sqe);
        return FabricsCommandType.fromValue(fctype).orElseThrow(() -> new MalformedStructureException(
                String.format("fabrics command byte 4 (FCTYPE): %02xh is not a defined fabrics command type", fctype),
                OFFSET_FCTYPE));
    }

    /** Checks opcode and FCTYPE before a specific decoder reads the rest. */
    static void expect(SubmissionQueueEntry sqe, FabricsCommandType expected) {
        FabricsCommandType actual = typeOf(sqe);
        if (actual != expected) {
            throw new MalformedStructureException(String.format(
                    "fabrics command byte 4 (FCTYPE): %02xh (%s), expected %02xh (%s)",
                    actual.value(), actual.title(), expected.value(), expected.title()), OFFSET_FCTYPE);
        }
    }

    /** Clears {@code sqe} and writes the common header. */
    static void encodeHeader(SubmissionQueueEntry sqe, FabricsCommandType type, CommandId cid) {
        sqe.clear();
        sqe.opcode(FabricsCommandType.OPCODE);
        sqe.psdt(SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS);
        sqe.cid(cid.value());
        Wire.u8(sqe.segment(), OFFSET_FCTYPE, type.value());
    }
}
