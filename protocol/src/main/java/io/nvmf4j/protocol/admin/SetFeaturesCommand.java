package io.nvmf4j.protocol.admin;

import static io.nvmf4j.protocol.admin.CommandViews.bits;
import static io.nvmf4j.protocol.admin.CommandViews.checkRange;
import static io.nvmf4j.protocol.admin.CommandViews.withBits;

import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * Set Features (opcode 09h; NVMe Base 2.0, 5.27). CDW10: FID bits 7:0, SV (save) bit 31; CDW11: the value, whose
 * layout depends on the feature (e.g. {@link NumberOfQueues}, KATO in milliseconds for {@link
 * FeatureId#KEEP_ALIVE_TIMER}, WCE bit 0 for {@link FeatureId#VOLATILE_WRITE_CACHE}).
 *
 * <p>Linux: {@code struct nvme_features}, {@code nvmet_execute_set_features()}; SPDK:
 * {@code spdk_nvme_cmd.cdw10_bits.set_features}.
 */
public final class SetFeaturesCommand {

    public static final int OFFSET_FID = 40;
    public static final int OFFSET_VALUE = 44;

    private final SubmissionQueueEntry sqe;

    private SetFeaturesCommand(SubmissionQueueEntry sqe) {
        this.sqe = sqe;
    }

    public static SetFeaturesCommand wrap(SubmissionQueueEntry sqe) {
        return new SetFeaturesCommand(CommandViews.requireOpcode(sqe, AdminOpcode.SET_FEATURES));
    }

    public static SetFeaturesCommand create(SubmissionQueueEntry sqe, FeatureId fid, int value) {
        CommandViews.start(sqe, AdminOpcode.SET_FEATURES);
        return new SetFeaturesCommand(sqe).fid(fid.code()).value(value);
    }

    /** Set Features Number of Queues: the first thing a host does after enabling the controller. */
    public static SetFeaturesCommand numberOfQueues(SubmissionQueueEntry sqe, NumberOfQueues queues) {
        return create(sqe, FeatureId.NUMBER_OF_QUEUES, queues.toDword());
    }

    /** Set Features Keep Alive Timer, KATO in milliseconds. */
    public static SetFeaturesCommand keepAliveTimer(SubmissionQueueEntry sqe, long katoMillis) {
        checkRange("KATO", katoMillis, 0, 0xFFFF_FFFFL);
        return create(sqe, FeatureId.KEEP_ALIVE_TIMER, (int) katoMillis);
    }

    public SubmissionQueueEntry sqe() {
        return sqe;
    }

    public int fid() {
        return bits(sqe.cdw10(), 0, 8);
    }

    public SetFeaturesCommand fid(int fid) {
        checkRange("FID", fid, 0, 0xFF);
        sqe.cdw(10, withBits(sqe.cdw10(), 0, 8, fid));
        return this;
    }

    /** Save, CDW10 bit 31: make the value persist across power cycles and resets. */
    public boolean save() {
        return bits(sqe.cdw10(), 31, 1) != 0;
    }

    public SetFeaturesCommand save(boolean save) {
        sqe.cdw(10, withBits(sqe.cdw10(), 31, 1, save ? 1 : 0));
        return this;
    }

    /** Feature value in CDW11. */
    public int value() {
        return sqe.cdw11();
    }

    public SetFeaturesCommand value(int value) {
        sqe.cdw(11, value);
        return this;
    }

    /** CDW11 as a Number of Queues value; fails on the reserved FFFFh halves. */
    public NumberOfQueues numberOfQueues() {
        return NumberOfQueues.fromDword(value());
    }

    /** CDW11 as KATO, unsigned milliseconds. */
    public long keepAliveTimeoutMillis() {
        return Integer.toUnsignedLong(value());
    }

    @Override
    public String toString() {
        return String.format("SetFeatures[cid=%d fid=%s sv=%b value=%08xh]", sqe.cid(),
                FeatureId.fromCode(fid()).map(Object::toString).orElse(String.format("%02xh", fid())), save(), value());
    }
}
