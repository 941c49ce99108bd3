package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;

/**
 * Disconnect (NVMe Base 2.0, "Disconnect command", FCTYPE 08h): deletes the I/O queue it is submitted on.
 * Bytes 41:40 hold RECFMT (0); SGL1 is unused.
 *
 * @param cid    command identifier
 * @param recfmt record format, 0
 */
public record DisconnectCommand(CommandId cid, int recfmt) implements FabricsCommand {

    public static final int OFFSET_RECFMT = 40;

    public DisconnectCommand {
        java.util.Objects.requireNonNull(cid, "cid");
        Wire.checkUnsigned("RECFMT", recfmt, 16);
    }

    public static DisconnectCommand of(CommandId cid) {
        return new DisconnectCommand(cid, 0);
    }

    @Override
    public FabricsCommandType fctype() {
        return FabricsCommandType.DISCONNECT;
    }

    @Override
    public void encode(SubmissionQueueEntry sqe) {
        FabricsCommand.encodeHeader(sqe, FabricsCommandType.DISCONNECT, cid);
        NULL_SGL.encode(sqe.dptr());
        Wire.u16(sqe.segment(), OFFSET_RECFMT, recfmt);
    }

    public static DisconnectCommand decode(SubmissionQueueEntry sqe) {
        FabricsCommand.expect(sqe, FabricsCommandType.DISCONNECT);
        return new DisconnectCommand(CommandId.of(sqe.cid()), Wire.u16(sqe.segment(), OFFSET_RECFMT));
    }

    @Override
    public String toString() {
        return "Disconnect[cid=" + cid.value() + " recfmt=" + recfmt + "]";
    }
}
