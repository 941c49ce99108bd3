package io.nvmf4j.protocol.admin;

import static io.nvmf4j.protocol.admin.CommandViews.bits;
import static io.nvmf4j.protocol.admin.CommandViews.checkRange;
import static io.nvmf4j.protocol.admin.CommandViews.withBits;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * Get Log Page (opcode 02h; NVMe Base 2.0, 5.16). CDW10: LID bits 7:0, LSP bits 14:8, RAE bit 15, NUMDL bits 31:16;
 * CDW11: NUMDU bits 15:0, Log Specific Identifier bits 31:16; CDW12/CDW13: log page offset (LPOL/LPOU, in bytes,
 * dword aligned); CDW14: UUID index bits 6:0, OT bit 23, CSI bits 31:24. NUMD = NUMDU:NUMDL is a 0's based count
 * of dwords.
 *
 * <p>Linux: {@code struct nvme_get_log_page_command} (lid@40, lsp@41, numdl@42, numdu@44, lsi@46, lpol@48,
 * lpou@52) and {@code nvmet_get_log_page_len()}; SPDK: {@code spdk_nvme_cmd.cdw10_bits.get_log_page}.
 */
public final class GetLogPageCommand {

    public static final int OFFSET_LID = 40;
    public static final int OFFSET_LSP = 41;
    public static final int OFFSET_NUMDL = 42;
    public static final int OFFSET_NUMDU = 44;
    public static final int OFFSET_LSI = 46;
    public static final int OFFSET_LPO = 48;

    /** NUMD is 32 bits, 0's based: at most 2^32 dwords. */
    public static final long MAX_DWORDS = 1L << 32;

    private final SubmissionQueueEntry sqe;

    private GetLogPageCommand(SubmissionQueueEntry sqe) {
        this.sqe = sqe;
    }

    public static GetLogPageCommand wrap(SubmissionQueueEntry sqe) {
        return new GetLogPageCommand(CommandViews.requireOpcode(sqe, AdminOpcode.GET_LOG_PAGE));
    }

    /** Clears {@code sqe} and writes a Get Log Page for {@code lid}, {@code lengthBytes} from offset 0. */
    public static GetLogPageCommand create(SubmissionQueueEntry sqe, int lid, long nsid, long lengthBytes) {
        CommandViews.start(sqe, AdminOpcode.GET_LOG_PAGE);
        sqe.nsid(nsid);
        return new GetLogPageCommand(sqe).lid(lid).lengthBytes(lengthBytes);
    }

    public SubmissionQueueEntry sqe() {
        return sqe;
    }

    /** Log Page Identifier, CDW10 bits 7:0. */
    public int lid() {
        return bits(sqe.cdw10(), 0, 8);
    }

    public GetLogPageCommand lid(int lid) {
        checkRange("LID", lid, 0, 0xFF);
        sqe.cdw(10, withBits(sqe.cdw10(), 0, 8, lid));
        return this;
    }

    /** Log Specific Parameter, CDW10 bits 14:8 (NVMe 1.4 defined only 11:8). */
    public int lsp() {
        return bits(sqe.cdw10(), 8, 7);
    }

    public GetLogPageCommand lsp(int lsp) {
        checkRange("LSP", lsp, 0, 0x7F);
        sqe.cdw(10, withBits(sqe.cdw10(), 8, 7, lsp));
        return this;
    }

    /** Retain Asynchronous Event, CDW10 bit 15: reading the page does not clear the pending event. */
    public boolean rae() {
        return bits(sqe.cdw10(), 15, 1) != 0;
    }

    public GetLogPageCommand rae(boolean rae) {
        sqe.cdw(10, withBits(sqe.cdw10(), 15, 1, rae ? 1 : 0));
        return this;
    }

    /** NUMD as stored: NUMDU (CDW11 15:0) above NUMDL (CDW10 31:16), 0's based. */
    public long numdRaw() {
        return ((long) bits(sqe.cdw11(), 0, 16) << 16) | bits(sqe.cdw10(), 16, 16);
    }

    /** Number of dwords to transfer (NUMD + 1). */
    public long numberOfDwords() {
        return numdRaw() + 1;
    }

    /** Number of bytes to transfer, as Linux {@code nvmet_get_log_page_len()} computes it. */
    public long lengthBytes() {
        return numberOfDwords() * 4;
    }

    /** Sets NUMDL/NUMDU for {@code bytes}, which must be a positive multiple of 4. */
    public GetLogPageCommand lengthBytes(long bytes) {
        if (bytes <= 0 || bytes % 4 != 0 || bytes / 4 > MAX_DWORDS) {
            throw new IllegalArgumentException("log page length " + bytes + " is not a positive dword multiple up to 2^34");
        }
        long numd = bytes / 4 - 1;
        sqe.cdw(10, withBits(sqe.cdw10(), 16, 16, (int) (numd & 0xFFFF)));
        sqe.cdw(11, withBits(sqe.cdw11(), 0, 16, (int) (numd >>> 16)));
        return this;
    }

    /** Log Specific Identifier, CDW11 bits 31:16. */
    public int lsi() {
        return bits(sqe.cdw11(), 16, 16);
    }

    public GetLogPageCommand lsi(int lsi) {
        checkRange("LSI", lsi, 0, 0xFFFF);
        sqe.cdw(11, withBits(sqe.cdw11(), 16, 16, lsi));
        return this;
    }

    /** Log Page Offset in bytes (LPOU:LPOL, CDW13:CDW12) as an unsigned 64-bit value. */
    public long offset() {
        return sqe.getLong(OFFSET_LPO);
    }

    public GetLogPageCommand offset(long offset) {
        if ((offset & 3) != 0) {
            throw new IllegalArgumentException("log page offset " + offset + " is not dword aligned");
        }
        sqe.setLong(OFFSET_LPO, offset);
        return this;
    }

    /** UUID Index, CDW14 bits 6:0. */
    public int uuidIndex() {
        return bits(sqe.cdw14(), 0, 7);
    }

    /** Command Set Identifier, CDW14 bits 31:24. */
    public int csi() {
        return bits(sqe.cdw14(), 24, 8);
    }

    /**
     * Spec-required checks on a received command: the offset must be dword aligned (NVMe Base 2.0, 5.16: "bits 1:0
     * of LPOL shall be cleared to 0h") unless OT (CDW14 bit 23) selects an index offset.
     */
    public GetLogPageCommand validate() {
        boolean indexOffset = bits(sqe.cdw14(), 23, 1) != 0;
        if (!indexOffset && (offset() & 3) != 0) {
            throw new MalformedStructureException("Get Log Page LPOL " + Long.toUnsignedString(offset())
                    + " is not dword aligned (CDW12 bits 1:0 must be 0)");
        }
        return this;
    }

    @Override
    public String toString() {
        return String.format("GetLogPage[cid=%d lid=%02xh nsid=%d lsp=%d rae=%b bytes=%d offset=%d]",
                sqe.cid(), lid(), sqe.nsid(), lsp(), rae(), lengthBytes(), offset());
    }
}
