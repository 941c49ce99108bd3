package io.nvmf4j.protocol.io;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The data of Reservation Register, Acquire and Release (NVMe Base 2.0, Figures 544 "Reservation Register Data
 * Structure", 538 "Reservation Acquire Data Structure", 550 "Reservation Release Data Structure"): two little-endian
 * 64-bit keys. Register: CRKEY at 0, NRKEY at 8 (16 bytes). Acquire: CRKEY at 0, PRKEY at 8 (16 bytes). Release:
 * CRKEY at 0 (8 bytes). Linux: {@code struct nvmet_pr_register_data {crkey, nrkey}},
 * {@code nvmet_pr_acquire_data {crkey, prkey}}, {@code nvmet_pr_release_data {crkey}}; SPDK:
 * {@code spdk_nvme_reservation_register_data}, {@code _acquire_data}, {@code _key_data}.
 *
 * @param currentKey CRKEY
 * @param otherKey   NRKEY (register) or PRKEY (acquire); 0 for release
 */
public record ReservationKeys(long currentKey, long otherKey) {

    public static final int OFFSET_CRKEY = 0;
    public static final int OFFSET_NRKEY = 8;
    public static final int OFFSET_PRKEY = 8;
    /** Register and Acquire data. */
    public static final int SIZE = 16;
    /** Release data: CRKEY only. */
    public static final int RELEASE_SIZE = 8;

    /** Register or Acquire data (16 bytes). */
    public static ReservationKeys decode(MemorySegment data) {
        Wire.require(data, SIZE, "reservation register/acquire data");
        return new ReservationKeys(Wire.u64(data, OFFSET_CRKEY), Wire.u64(data, OFFSET_NRKEY));
    }

    /** Release data (8 bytes). */
    public static ReservationKeys decodeRelease(MemorySegment data) {
        Wire.require(data, RELEASE_SIZE, "reservation release data");
        return new ReservationKeys(Wire.u64(data, OFFSET_CRKEY), 0);
    }

    /** CRKEY of any of the three (the first 8 bytes), without an object: the target's command path. */
    public static long crkey(MemorySegment data) {
        return Wire.u64(data, OFFSET_CRKEY);
    }

    /** NRKEY / PRKEY (bytes 8-15). */
    public static long secondKey(MemorySegment data) {
        return Wire.u64(data, OFFSET_NRKEY);
    }

    /** Writes both keys (16 bytes). */
    public void encode(MemorySegment data) {
        Wire.requireDestination(data, SIZE, "reservation register/acquire data");
        Wire.u64(data, OFFSET_CRKEY, currentKey);
        Wire.u64(data, OFFSET_NRKEY, otherKey);
    }

    /** Writes the release data (8 bytes). */
    public void encodeRelease(MemorySegment data) {
        Wire.requireDestination(data, RELEASE_SIZE, "reservation release data");
        Wire.u64(data, OFFSET_CRKEY, currentKey);
    }
}
