package io.nvmf4j.protocol.log;

import java.util.Optional;

/**
 * Asymmetric Namespace Access states (NVMe Base 2.0, 8.1.3; the ANA State field of an ANA Group Descriptor, Figure
 * 211), with the names nvmetcli and Linux sysfs use ({@code nvme_ana_state_names}: "optimized", "non-optimized",
 * "inaccessible", "persistent-loss", "change").
 */
public enum AnaState {
    OPTIMIZED(0x01, "optimized"),
    NON_OPTIMIZED(0x02, "non-optimized"),
    INACCESSIBLE(0x03, "inaccessible"),
    PERSISTENT_LOSS(0x04, "persistent-loss"),
    CHANGE(0x0F, "change");

    private final int code;
    private final String label;

    AnaState(int code, String label) {
        this.code = code;
        this.label = label;
    }

    public int code() {
        return code;
    }

    /** The nvmetcli / sysfs name. */
    public String label() {
        return label;
    }

    /** Whether I/O is served in this state (optimized or non-optimized; nvmet_check_ana_state()). */
    public boolean accessible() {
        return this == OPTIMIZED || this == NON_OPTIMIZED;
    }

    public static Optional<AnaState> fromCode(int code) {
        for (AnaState s : values()) {
            if (s.code == code) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /** By the nvmetcli name ("optimized", ..., "change"). */
    public static Optional<AnaState> fromLabel(String label) {
        for (AnaState s : values()) {
            if (s.label.equals(label)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return label;
    }
}
