package io.nvmf4j.protocol.log;

import java.util.Optional;

/**
 * Log Page Identifiers (NVMe Base 2.0, Figure 202). Linux: {@code NVME_LOG_*}; SPDK: {@code enum spdk_nvme_log_page}.
 */
public enum LogPageId {
    SUPPORTED_LOG_PAGES(0x00),
    ERROR(0x01),
    SMART(0x02),
    FW_SLOT(0x03),
    CHANGED_NS(0x04),
    CMD_EFFECTS(0x05),
    DEVICE_SELF_TEST(0x06),
    TELEMETRY_HOST(0x07),
    TELEMETRY_CTRL(0x08),
    ENDURANCE_GROUP(0x09),
    ANA(0x0C),
    /** NVMe-oF Discovery log page (only on discovery controllers). */
    DISCOVERY(0x70),
    RESERVATION(0x80),
    SANITIZE(0x81);

    private static final LogPageId[] BY_CODE = new LogPageId[256];

    static {
        for (LogPageId id : values()) {
            BY_CODE[id.code] = id;
        }
    }

    private final int code;

    LogPageId(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static Optional<LogPageId> fromCode(int code) {
        return (code < 0 || code > 0xFF) ? Optional.empty() : Optional.ofNullable(BY_CODE[code]);
    }

    @Override
    public String toString() {
        return String.format("%s(%02xh)", name(), code);
    }
}
