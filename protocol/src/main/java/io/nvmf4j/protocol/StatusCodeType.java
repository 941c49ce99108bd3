package io.nvmf4j.protocol;

import java.util.Optional;

/**
 * Status Code Type, bits 10:08 of the completion status field (NVMe Base 2.0, "Status Code Type"). Values 4h-6h
 * are reserved. Linux: {@code NVME_SCT_*} in {@code include/linux/nvme.h};
 * SPDK: {@code enum spdk_nvme_status_code_type}.
 */
public enum StatusCodeType {
    GENERIC(0x0, "Generic Command Status"),
    COMMAND_SPECIFIC(0x1, "Command Specific Status"),
    MEDIA_AND_DATA_INTEGRITY(0x2, "Media and Data Integrity Errors"),
    PATH_RELATED(0x3, "Path Related Status"),
    VENDOR_SPECIFIC(0x7, "Vendor Specific");

    private final int value;
    private final String title;

    StatusCodeType(int value, String title) {
        this.value = value;
        this.title = title;
    }

    /** The 3-bit SCT value. */
    public int value() {
        return value;
    }

    /** The spec's title for this type. */
    public String title() {
        return title;
    }

    /** The type for a 3-bit SCT value, empty for the reserved values 4h-6h. */
    public static Optional<StatusCodeType> fromValue(int sct) {
        for (StatusCodeType t : values()) {
            if (t.value == sct) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
