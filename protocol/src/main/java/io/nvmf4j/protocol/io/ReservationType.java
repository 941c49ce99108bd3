package io.nvmf4j.protocol.io;

import java.util.Optional;

/**
 * Reservation types (NVMe Base 2.0, 8.19 Reservations, Figure 531 "Reservation Type Encoding"; the RTYPE field of
 * Reservation Acquire/Release and of the Reservation Status data structure). Linux: {@code enum pr_type} mapped by
 * {@code nvme_pr_type_from_blk()} / {@code NVME_PR_*}; SPDK: {@code enum spdk_nvme_reservation_type}.
 */
public enum ReservationType {
    WRITE_EXCLUSIVE(1),
    EXCLUSIVE_ACCESS(2),
    WRITE_EXCLUSIVE_REGISTRANTS_ONLY(3),
    EXCLUSIVE_ACCESS_REGISTRANTS_ONLY(4),
    WRITE_EXCLUSIVE_ALL_REGISTRANTS(5),
    EXCLUSIVE_ACCESS_ALL_REGISTRANTS(6);

    private static final ReservationType[] BY_CODE = {null, WRITE_EXCLUSIVE, EXCLUSIVE_ACCESS,
        WRITE_EXCLUSIVE_REGISTRANTS_ONLY, EXCLUSIVE_ACCESS_REGISTRANTS_ONLY, WRITE_EXCLUSIVE_ALL_REGISTRANTS,
        EXCLUSIVE_ACCESS_ALL_REGISTRANTS};

    private final int code;

    ReservationType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** An "All Registrants" type: every registrant is a reservation holder (8.19.1). */
    public boolean allRegistrants() {
        return this == WRITE_EXCLUSIVE_ALL_REGISTRANTS || this == EXCLUSIVE_ACCESS_ALL_REGISTRANTS;
    }

    /** A "Registrants Only" or "All Registrants" type: registrants that do not hold it still get access. */
    public boolean registrantsHaveAccess() {
        return code >= 3;
    }

    /** An "Exclusive Access" type: reads too are kept from those without access. */
    public boolean excludesReads() {
        return this == EXCLUSIVE_ACCESS || this == EXCLUSIVE_ACCESS_REGISTRANTS_ONLY
                || this == EXCLUSIVE_ACCESS_ALL_REGISTRANTS;
    }

    /** The type of RTYPE {@code code} (1..6), or empty for 0 (none) and the reserved values. */
    public static Optional<ReservationType> fromCode(int code) {
        return code >= 1 && code <= 6 ? Optional.of(BY_CODE[code]) : Optional.empty();
    }

    /** Like {@link #fromCode(int)} without the Optional (for the I/O path): null for 0 and reserved values. */
    public static ReservationType ofCode(int code) {
        return code >= 1 && code <= 6 ? BY_CODE[code] : null;
    }
}
