package io.nvmf4j.protocol.admin;

import static io.nvmf4j.protocol.admin.CommandViews.bits;
import static io.nvmf4j.protocol.admin.CommandViews.checkRange;
import static io.nvmf4j.protocol.admin.CommandViews.withBits;

import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * Get Features (opcode 0Ah; NVMe Base 2.0, 5.15). CDW10: FID bits 7:0, SEL bits 10:8; CDW11: feature specific.
 * The current value comes back in DW0 of the completion.
 *
 * <p>Linux: {@code struct nvme_features} (fid is CDW10, dword11 is CDW11); SPDK:
 * {@code spdk_nvme_cmd.cdw10_bits.get_features}.
 */
public final class GetFeaturesCommand {

    public static final int OFFSET_FID = 40;

    public static final int SEL_CURRENT = 0;
    public static final int SEL_DEFAULT = 1;
    public static final int SEL_SAVED = 2;
    public static final int SEL_SUPPORTED_CAPABILITIES = 3;

    private final SubmissionQueueEntry sqe;

    private GetFeaturesCommand(SubmissionQueueEntry sqe) {
        this.sqe = sqe;
    }

    public static GetFeaturesCommand wrap(SubmissionQueueEntry sqe) {
        return new GetFeaturesCommand(CommandViews.requireOpcode(sqe, AdminOpcode.GET_FEATURES));
    }

    public static GetFeaturesCommand create(SubmissionQueueEntry sqe, FeatureId fid) {
        CommandViews.start(sqe, AdminOpcode.GET_FEATURES);
        return new GetFeaturesCommand(sqe).fid(fid.code());
    }

    public SubmissionQueueEntry sqe() {
        return sqe;
    }

    /** Feature Identifier, CDW10 bits 7:0, as a raw byte (unknown values must reach the handler). */
    public int fid() {
        return bits(sqe.cdw10(), 0, 8);
    }

    public GetFeaturesCommand fid(int fid) {
        checkRange("FID", fid, 0, 0xFF);
        sqe.cdw(10, withBits(sqe.cdw10(), 0, 8, fid));
        return this;
    }

    /** Select, CDW10 bits 10:8: current, default, saved or supported capabilities. */
    public int sel() {
        return bits(sqe.cdw10(), 8, 3);
    }

    public GetFeaturesCommand sel(int sel) {
        checkRange("SEL", sel, 0, 3);
        sqe.cdw(10, withBits(sqe.cdw10(), 8, 3, sel));
        return this;
    }

    /** Feature specific CDW11. */
    public int cdw11() {
        return sqe.cdw11();
    }

    public GetFeaturesCommand cdw11(int value) {
        sqe.cdw(11, value);
        return this;
    }

    @Override
    public String toString() {
        return String.format("GetFeatures[cid=%d fid=%s sel=%d cdw11=%08xh]", sqe.cid(),
                FeatureId.fromCode(fid()).map(Object::toString).orElse(String.format("%02xh", fid())), sel(), cdw11());
    }
}
