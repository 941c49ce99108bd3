package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.sgl.SglDescriptor;
import java.lang.foreign.MemorySegment;

/**
 * The Connect command (NVMe-oF 1.1, 3.3 "Connect Command and Response"; NVMe Base 2.0, "Connect command"): creates
 * the admin
 * queue (and with it a controller) or an I/O
 * queue. Byte layout of Linux {@code struct nvmf_connect_command}:
 *
 * <pre>
 *  0      opcode 7Fh          24..39 SGL1 (describes the 1024-byte {@link ConnectData})
 *  1      reserved (PSDT)     40..41 RECFMT        46 CATTR
 *  2..3   CID                 42..43 QID           47 reserved
 *  4      FCTYPE 01h          44..45 SQSIZE        48..51 KATO (ms)
 *  5..23  reserved                                 52..63 reserved
 * </pre>
 *
 * @param cid    command identifier
 * @param sgl1   where the 1024-byte Connect data is: in the capsule (data block, offset subtype) or keyed
 * @param recfmt record format, 0 for NVMe-oF 1.x
 * @param qid    queue to create; 0 is the admin queue
 * @param sqsize submission queue size, 0's based (Linux sends {@code NVME_AQ_DEPTH - 1} = 31 for the admin queue)
 * @param cattr  connect attributes: bits 1:0 priority class, bit 2 disable SQ flow control
 * @param kato   keep alive timeout in milliseconds (admin queue only; 0 disables)
 */
public record ConnectCommand(CommandId cid, SglDescriptor sgl1, int recfmt, QueueId qid, int sqsize, int cattr,
                             long kato) implements FabricsCommand {

    public static final int OFFSET_RECFMT = 40;
    public static final int OFFSET_QID = 42;
    public static final int OFFSET_SQSIZE = 44;
    public static final int OFFSET_CATTR = 46;
    public static final int OFFSET_KATO = 48;

    /** CATTR bit 2: the host asks the controller to disable SQ flow control (Linux NVME_CONNECT_DISABLE_SQFLOW). */
    public static final int CATTR_DISABLE_SQ_FLOW_CONTROL = 1 << 2;
    /** RECFMT of NVMe-oF 1.0 and 1.1. */
    public static final int RECFMT_1_0 = 0;

    public ConnectCommand {
        java.util.Objects.requireNonNull(cid, "cid");
        java.util.Objects.requireNonNull(sgl1, "sgl1");
        java.util.Objects.requireNonNull(qid, "qid");
        Wire.checkUnsigned("RECFMT", recfmt, 16);
        Wire.checkUnsigned("SQSIZE", sqsize, 16);
        Wire.checkUnsigned("CATTR", cattr, 8);
        Wire.checkUnsigned("KATO", kato, 32);
    }

    /** An admin-queue Connect as Linux {@code nvmf_connect_admin_queue()} builds it. */
    public static ConnectCommand adminQueue(CommandId cid, SglDescriptor sgl1, int sqsize, long katoMillis) {
        return new ConnectCommand(cid, sgl1, RECFMT_1_0, QueueId.ADMIN, sqsize, 0, katoMillis);
    }

    /** An I/O-queue Connect as Linux {@code nvmf_connect_io_queue()} builds it (no KATO). */
    public static ConnectCommand ioQueue(CommandId cid, SglDescriptor sgl1, QueueId qid, int sqsize) {
        return new ConnectCommand(cid, sgl1, RECFMT_1_0, qid, sqsize, 0, 0);
    }

    /** This Connect asking, as well, that SQ flow control be disabled (Linux {@code opts->disable_sqflow}). */
    public ConnectCommand withSqFlowControlDisabled() {
        return new ConnectCommand(cid, sgl1, recfmt, qid, sqsize, cattr | CATTR_DISABLE_SQ_FLOW_CONTROL, kato);
    }

    @Override
    public FabricsCommandType fctype() {
        return FabricsCommandType.CONNECT;
    }

    /** Queue entries the host asked for (SQSIZE + 1). */
    public int queueEntries() {
        return sqsize + 1;
    }

    public boolean disableSqFlowControl() {
        return (cattr & CATTR_DISABLE_SQ_FLOW_CONTROL) != 0;
    }

    @Override
    public void encode(SubmissionQueueEntry sqe) {
        FabricsCommand.encodeHeader(sqe, FabricsCommandType.CONNECT, cid);
        MemorySegment s = sqe.segment();
        sgl1.encode(sqe.dptr());
        Wire.u16(s, OFFSET_RECFMT, recfmt);
        Wire.u16(s, OFFSET_QID, qid.value());
        Wire.u16(s, OFFSET_SQSIZE, sqsize);
        Wire.u8(s, OFFSET_CATTR, cattr);
        Wire.u32(s, OFFSET_KATO, kato);
    }

    // Field reads in place (no allocation), for a controller that checks a Connect field by field before it has
    // decided the command is well formed (nvmet_parse_connect_cmd() / nvmet_execute_*_connect()).

    /** RECFMT (bytes 41:40). */
    public static int recfmtOf(SubmissionQueueEntry sqe) {
        return Wire.u16(sqe.segment(), OFFSET_RECFMT);
    }

    /** QID (bytes 43:42), the raw value. */
    public static int qidOf(SubmissionQueueEntry sqe) {
        return Wire.u16(sqe.segment(), OFFSET_QID);
    }

    /** SQSIZE (bytes 45:44), 0's based. */
    public static int sqsizeOf(SubmissionQueueEntry sqe) {
        return Wire.u16(sqe.segment(), OFFSET_SQSIZE);
    }

    /** CATTR (byte 46). */
    public static int cattrOf(SubmissionQueueEntry sqe) {
        return Wire.u8(sqe.segment(), OFFSET_CATTR);
    }

    /** KATO (bytes 51:48), milliseconds. */
    public static long katoOf(SubmissionQueueEntry sqe) {
        return Wire.u32(sqe.segment(), OFFSET_KATO);
    }

    /**
     * Reads a Connect from {@code sqe}. Fails on a wrong opcode/FCTYPE or an undefined SGL1; value checks (RECFMT,
     * SQSIZE, QID) are the controller's, which answers them with Connect statuses.
     */
    public static ConnectCommand decode(SubmissionQueueEntry sqe) {
        FabricsCommand.expect(sqe, FabricsCommandType.CONNECT);
        return new ConnectCommand(CommandId.of(sqe.cid()), SglDescriptor.decode(sqe.dptr()), recfmtOf(sqe),
                QueueId.of(qidOf(sqe)), sqsizeOf(sqe), cattrOf(sqe), katoOf(sqe));
    }

    @Override
    public String toString() {
        return String.format("Connect[cid=%d %s sqsize=%d recfmt=%d cattr=%02xh kato=%dms sgl1=%s]",
                cid.value(), qid, sqsize, recfmt, cattr, kato, sgl1);
    }
}
