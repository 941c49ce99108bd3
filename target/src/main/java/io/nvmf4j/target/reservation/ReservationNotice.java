package io.nvmf4j.target.reservation;

/**
 * A Reservation Notification owed to every controller of {@code host} (NVMe Base 2.0, 8.19.7; a log page entry
 * of type {@code type}, 1 Registration Preempted, 2 Reservation Released, 3 Reservation Preempted, and the
 * Reservation Log Page Available event). The state machine collects these; the command handler delivers them.
 */
public record ReservationNotice(HostId host, int type) {
}
