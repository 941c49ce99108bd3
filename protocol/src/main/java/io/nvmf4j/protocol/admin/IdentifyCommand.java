package io.nvmf4j.protocol.admin;

import static io.nvmf4j.protocol.admin.CommandViews.bits;
import static io.nvmf4j.protocol.admin.CommandViews.checkRange;
import static io.nvmf4j.protocol.admin.CommandViews.withBits;

import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * Identify (opcode 06h; NVMe Base 2.0, 5.17). CDW10 holds CNS in bits 7:0 and CNTID in bits 31:16; CDW11 holds the
 * CNS specific identifier in bits 15:0 and the Command Set Identifier in bits 31:24. The data (always 4096 bytes)
 * goes to the data pointer.
 *
 * <p>Linux: {@code struct nvme_identify} (cns is a byte at offset 40, cntid a __le16 at 42); SPDK:
 * {@code SPDK_NVME_OPC_IDENTIFY} with {@code spdk_nvme_cmd.cdw10_bits.identify}.
 */
public final class IdentifyCommand {

    /** Every Identify data structure is 4096 bytes (NVMe Base 2.0, 5.17.2). */
    public static final int DATA_LENGTH = 4096;

    public static final int OFFSET_CNS = 40;
    public static final int OFFSET_CNTID = 42;
    public static final int OFFSET_CNS_SPECIFIC_ID = 44;
    public static final int OFFSET_CSI = 47;

    /** CNS 00h: Identify Namespace data structure for the NSID. */
    public static final int CNS_NAMESPACE = 0x00;
    /** CNS 01h: Identify Controller data structure. */
    public static final int CNS_CONTROLLER = 0x01;
    /** CNS 02h: Active Namespace ID list, IDs greater than the NSID. */
    public static final int CNS_ACTIVE_NAMESPACE_LIST = 0x02;
    /** CNS 03h: Namespace Identification Descriptor list for the NSID. */
    public static final int CNS_NAMESPACE_DESCRIPTOR_LIST = 0x03;

    private final SubmissionQueueEntry sqe;

    private IdentifyCommand(SubmissionQueueEntry sqe) {
        this.sqe = sqe;
    }

    /** A view over a received entry; fails if its opcode is not Identify. */
    public static IdentifyCommand wrap(SubmissionQueueEntry sqe) {
        return new IdentifyCommand(CommandViews.requireOpcode(sqe, AdminOpcode.IDENTIFY));
    }

    /** Clears {@code sqe} and writes an Identify command for {@code cns} and {@code nsid}. */
    public static IdentifyCommand create(SubmissionQueueEntry sqe, int cns, long nsid) {
        CommandViews.start(sqe, AdminOpcode.IDENTIFY);
        return new IdentifyCommand(sqe).cns(cns).nsid(nsid);
    }

    public SubmissionQueueEntry sqe() {
        return sqe;
    }

    public long nsid() {
        return sqe.nsid();
    }

    public IdentifyCommand nsid(long nsid) {
        checkRange("NSID", nsid, 0, 0xFFFF_FFFFL);
        sqe.nsid(nsid);
        return this;
    }

    /** Controller or Namespace Structure, CDW10 bits 7:0. */
    public int cns() {
        return bits(sqe.cdw10(), 0, 8);
    }

    public IdentifyCommand cns(int cns) {
        checkRange("CNS", cns, 0, 0xFF);
        sqe.cdw(10, withBits(sqe.cdw10(), 0, 8, cns));
        return this;
    }

    /** Controller Identifier, CDW10 bits 31:16 (used by the controller list CNS values). */
    public int cntid() {
        return bits(sqe.cdw10(), 16, 16);
    }

    public IdentifyCommand cntid(int cntid) {
        checkRange("CNTID", cntid, 0, 0xFFFF);
        sqe.cdw(10, withBits(sqe.cdw10(), 16, 16, cntid));
        return this;
    }

    /** CNS Specific Identifier, CDW11 bits 15:0 (e.g. NVM Set Identifier). */
    public int cnsSpecificId() {
        return bits(sqe.cdw11(), 0, 16);
    }

    public IdentifyCommand cnsSpecificId(int id) {
        checkRange("CNS specific identifier", id, 0, 0xFFFF);
        sqe.cdw(11, withBits(sqe.cdw11(), 0, 16, id));
        return this;
    }

    /** Command Set Identifier, CDW11 bits 31:24 (00h NVM). */
    public int csi() {
        return bits(sqe.cdw11(), 24, 8);
    }

    public IdentifyCommand csi(int csi) {
        checkRange("CSI", csi, 0, 0xFF);
        sqe.cdw(11, withBits(sqe.cdw11(), 24, 8, csi));
        return this;
    }

    public static String cnsName(int cns) {
        return switch (cns) {
            case CNS_NAMESPACE -> "namespace";
            case CNS_CONTROLLER -> "controller";
            case CNS_ACTIVE_NAMESPACE_LIST -> "active-ns-list";
            case CNS_NAMESPACE_DESCRIPTOR_LIST -> "ns-descriptors";
            default -> String.format("cns-%02xh", cns);
        };
    }

    @Override
    public String toString() {
        return String.format("Identify[cid=%d cns=%s nsid=%d cntid=%d csi=%d]",
                sqe.cid(), cnsName(cns()), nsid(), cntid(), csi());
    }
}
