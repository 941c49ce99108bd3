package io.nvmf4j.initiator;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;

/**
 * The outcome of a Get Features command ({@link NvmeController#getFeatures}): the completion's DW0 (the feature's
 * value, NVMe Base 2.0, 5.15) and its status. A status other than success is returned, not thrown: a controller
 * answers Invalid Field for a feature it does not implement, which a caller walking the features (like
 * {@code nvme get-feature} without {@code -f}) skips.
 *
 * @param dw0    completion DW0: the value (or, for SEL 011b, the capabilities: saveable, per-namespace, changeable)
 * @param status the completion status
 */
public record FeatureResult(int dw0, Status status) {

    public boolean isSuccess() {
        return status.isSuccess();
    }

    /** True when the controller does not know the feature (Invalid Field in Command, the usual answer). */
    public boolean isUnsupported() {
        return status.is(StatusCode.INVALID_FIELD);
    }
}
