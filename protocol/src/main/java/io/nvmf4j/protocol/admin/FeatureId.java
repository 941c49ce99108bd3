package io.nvmf4j.protocol.admin;

import java.util.Optional;

/**
 * Feature Identifiers (NVMe Base 2.0, Figure 317 "Feature Identifiers"), the FID in CDW10 bits 7:0 of Get and Set
 * Features. Linux: {@code NVME_FEAT_*}; SPDK: {@code enum spdk_nvme_feat}.
 */
public enum FeatureId {
    ARBITRATION(0x01),
    POWER_MANAGEMENT(0x02),
    LBA_RANGE_TYPE(0x03),
    TEMPERATURE_THRESHOLD(0x04),
    ERROR_RECOVERY(0x05),
    /** CDW11 bit 0: WCE, volatile write cache enable. */
    VOLATILE_WRITE_CACHE(0x06),
    /** CDW11: NSQR bits 15:0, NCQR bits 31:16, both 0's based; see {@link NumberOfQueues}. */
    NUMBER_OF_QUEUES(0x07),
    INTERRUPT_COALESCING(0x08),
    INTERRUPT_VECTOR_CONFIGURATION(0x09),
    WRITE_ATOMICITY_NORMAL(0x0A),
    /** CDW11: which events trigger an Asynchronous Event completion (SMART bits 7:0, notices 8 and up). */
    ASYNC_EVENT_CONFIGURATION(0x0B),
    AUTONOMOUS_POWER_STATE_TRANSITION(0x0C),
    HOST_MEMORY_BUFFER(0x0D),
    TIMESTAMP(0x0E),
    /** CDW11: KATO, the keep alive timeout in milliseconds (0 disables). */
    KEEP_ALIVE_TIMER(0x0F),
    HOST_CONTROLLED_THERMAL_MANAGEMENT(0x10),
    NON_OPERATIONAL_POWER_STATE_CONFIG(0x11),
    SOFTWARE_PROGRESS_MARKER(0x80),
    /** 8 or 16 bytes of host identifier in the data buffer (16 bytes, EXHID set, for NVMe-oF). */
    HOST_IDENTIFIER(0x81),
    RESERVATION_NOTIFICATION_MASK(0x82),
    RESERVATION_PERSISTENCE(0x83),
    /** CDW11 bits 2:0: the namespace's write protection state (0 none, 1 write protected); NSID names it. */
    NAMESPACE_WRITE_PROTECTION(0x84);

    private static final FeatureId[] BY_CODE = new FeatureId[256];

    static {
        for (FeatureId f : values()) {
            BY_CODE[f.code] = f;
        }
    }

    private final int code;

    FeatureId(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static Optional<FeatureId> fromCode(int code) {
        return (code < 0 || code > 0xFF) ? Optional.empty() : Optional.ofNullable(BY_CODE[code]);
    }

    @Override
    public String toString() {
        return String.format("%s(%02xh)", name(), code);
    }
}
