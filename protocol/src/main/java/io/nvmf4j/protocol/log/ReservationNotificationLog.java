package io.nvmf4j.protocol.log;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The Reservation Notification log page (80h; NVMe Base 2.0, 5.16.1.23, Figure 254), 64 bytes: Log Page Count u64
 * at 0 (a counter of notifications, 0 when the page is empty, wrapping past 1), Reservation Notification Log Page
 * Type u8 at 8 (0 empty, 1 Registration Preempted, 2 Reservation Released, 3 Reservation Preempted), Number of
 * Available Log Pages u8 at 9 (more notifications queued behind this one, up to FFh), NSID u32 at 12. Linux:
 * {@code struct nvme_pr_log}, {@code nvmet_execute_get_log_page_resv()}; SPDK:
 * {@code spdk_nvme_reservation_notification_log}.
 */
public record ReservationNotificationLog(long count, int type, int availablePages, long nsid) {

    public static final int SIZE = 64;
    public static final int OFFSET_COUNT = 0;
    public static final int OFFSET_TYPE = 8;
    public static final int OFFSET_NR_PAGES = 9;
    public static final int OFFSET_NSID = 12;

    public static final int TYPE_EMPTY = 0;
    public static final int TYPE_REGISTRATION_PREEMPTED = 1;
    public static final int TYPE_RESERVATION_RELEASED = 2;
    public static final int TYPE_RESERVATION_PREEMPTED = 3;

    /** The page read when nothing is pending: all zeroes. */
    public static final ReservationNotificationLog EMPTY = new ReservationNotificationLog(0, TYPE_EMPTY, 0, 0);

    public ReservationNotificationLog {
        if (type < 0 || type > 0xFF || availablePages < 0 || availablePages > 0xFF) {
            throw new IllegalArgumentException("type " + type + " / available pages " + availablePages
                    + " outside 0..255");
        }
    }

    public static ReservationNotificationLog decode(MemorySegment data) {
        Wire.require(data, SIZE, "reservation notification log page");
        return new ReservationNotificationLog(Wire.u64(data, OFFSET_COUNT), Wire.u8(data, OFFSET_TYPE),
                Wire.u8(data, OFFSET_NR_PAGES), Wire.u32(data, OFFSET_NSID));
    }

    /** Writes the 64 bytes (zeroing the reserved ones). */
    public void encode(MemorySegment data) {
        MemorySegment page = Wire.requireDestination(data, SIZE, "reservation notification log page");
        page.fill((byte) 0);
        Wire.u64(page, OFFSET_COUNT, count);
        Wire.u8(page, OFFSET_TYPE, type);
        Wire.u8(page, OFFSET_NR_PAGES, availablePages);
        Wire.u32(page, OFFSET_NSID, nsid);
    }
}
