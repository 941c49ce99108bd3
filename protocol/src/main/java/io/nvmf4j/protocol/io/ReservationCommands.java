package io.nvmf4j.protocol.io;

import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * The command dwords of the four reservation commands (NVMe Base 2.0, 7.2-7.5: Reservation Acquire 11h, Register 0Dh,
 * Release 15h, Report 0Eh), read in place from the SQE (no object per command) and written by the {@code create*}
 * helpers. Linux: {@code nvme_pr_*} in {@code host/pr.c}, {@code nvmet_execute_pr_*} in {@code target/pr.c}; SPDK:
 * {@code cdw10_bits.resv_register / resv_acquire / resv_release / resv_report}.
 *
 * <ul>
 *   <li>Register CDW10: RREGA bits 2:0 (0 register, 1 unregister, 2 replace), IEKEY bit 3, CPTPL bits 31:30
 *       (00b no change, 10b clear PTPL, 11b persist through power loss);</li>
 *   <li>Acquire CDW10: RACQA bits 2:0 (0 acquire, 1 preempt, 2 preempt and abort), IEKEY bit 3, RTYPE bits 15:8;</li>
 *   <li>Release CDW10: RRELA bits 2:0 (0 release, 1 clear), IEKEY bit 3, RTYPE bits 15:8;</li>
 *   <li>Report CDW10: NUMD (0's based dwords); CDW11 bit 0: EDS, the extended data structure (128-bit host ids).</li>
 * </ul>
 */
public final class ReservationCommands {

    public static final int REGISTER_ACTION_REGISTER = 0;
    public static final int REGISTER_ACTION_UNREGISTER = 1;
    public static final int REGISTER_ACTION_REPLACE = 2;
    public static final int CPTPL_NO_CHANGE = 0;
    public static final int CPTPL_CLEAR = 2;
    public static final int CPTPL_PERSIST = 3;
    public static final int ACQUIRE_ACTION_ACQUIRE = 0;
    public static final int ACQUIRE_ACTION_PREEMPT = 1;
    public static final int ACQUIRE_ACTION_PREEMPT_AND_ABORT = 2;
    public static final int RELEASE_ACTION_RELEASE = 0;
    public static final int RELEASE_ACTION_CLEAR = 1;

    private ReservationCommands() {
    }

    /** RREGA / RACQA / RRELA, CDW10 bits 2:0. */
    public static int action(SubmissionQueueEntry sqe) {
        return sqe.cdw10() & 0x7;
    }

    /** IEKEY, CDW10 bit 3: ignore existing key. */
    public static boolean ignoreExistingKey(SubmissionQueueEntry sqe) {
        return (sqe.cdw10() & 0x8) != 0;
    }

    /** RTYPE of Acquire and Release, CDW10 bits 15:8 (the raw value; see {@link ReservationType#ofCode(int)}). */
    public static int rtype(SubmissionQueueEntry sqe) {
        return (sqe.cdw10() >>> 8) & 0xFF;
    }

    /** CPTPL of Register, CDW10 bits 31:30. */
    public static int cptpl(SubmissionQueueEntry sqe) {
        return sqe.cdw10() >>> 30;
    }

    /** Report: bytes asked for, (NUMD + 1) × 4 (up to 16 GiB: the caller bounds it). */
    public static long reportLength(SubmissionQueueEntry sqe) {
        return (Integer.toUnsignedLong(sqe.cdw10()) + 1) * 4;
    }

    /** Report: EDS, CDW11 bit 0. */
    public static boolean extendedDataStructure(SubmissionQueueEntry sqe) {
        return (sqe.cdw11() & 1) != 0;
    }

    public static SubmissionQueueEntry createRegister(SubmissionQueueEntry sqe, long nsid, int action,
            boolean iekey, int cptpl) {
        return create(sqe, IoOpcode.RESERVATION_REGISTER, nsid, (action & 7) | (iekey ? 8 : 0) | cptpl << 30);
    }

    public static SubmissionQueueEntry createAcquire(SubmissionQueueEntry sqe, long nsid, int action, boolean iekey,
            int rtype) {
        return create(sqe, IoOpcode.RESERVATION_ACQUIRE, nsid, (action & 7) | (iekey ? 8 : 0) | (rtype & 0xFF) << 8);
    }

    public static SubmissionQueueEntry createRelease(SubmissionQueueEntry sqe, long nsid, int action, boolean iekey,
            int rtype) {
        return create(sqe, IoOpcode.RESERVATION_RELEASE, nsid, (action & 7) | (iekey ? 8 : 0) | (rtype & 0xFF) << 8);
    }

    /** Report of {@code bytes} (a multiple of 4, at least 4). */
    public static SubmissionQueueEntry createReport(SubmissionQueueEntry sqe, long nsid, int bytes, boolean eds) {
        if (bytes < 4 || bytes % 4 != 0) {
            throw new IllegalArgumentException("report length " + bytes + " is not a positive multiple of 4");
        }
        create(sqe, IoOpcode.RESERVATION_REPORT, nsid, bytes / 4 - 1);
        return sqe.cdw(11, eds ? 1 : 0);
    }

    private static SubmissionQueueEntry create(SubmissionQueueEntry sqe, IoOpcode op, long nsid, int cdw10) {
        sqe.clear();
        sqe.opcode(op.code());
        sqe.nsid(nsid);
        return sqe.cdw(10, cdw10);
    }
}
