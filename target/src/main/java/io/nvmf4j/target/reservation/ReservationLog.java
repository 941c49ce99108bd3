package io.nvmf4j.target.reservation;

import io.nvmf4j.protocol.log.ReservationNotificationLog;
import java.util.ArrayDeque;

/**
 * The Reservation Notification log of one controller (NVMe Base 2.0, 5.16.1.23; Linux {@code nvmet_pr_log_mgr}):
 * a bounded queue of notifications, each read of log page 80h takes the oldest. The Log Page Count increments per
 * notification (wrapping past zero to 1); notifications that did not fit are accounted for by a jump in the count
 * of the next page read, as nvmet_execute_get_log_page_resv() does.
 */
public final class ReservationLog {

    /** nvmet's NVMET_PR_LOG_QUEUE_SIZE. */
    public static final int CAPACITY = 64;

    private record Entry(long count, int type, long nsid) {
    }

    private final ArrayDeque<Entry> queue = new ArrayDeque<>();
    private long counter;
    private long lost;

    /** nvmet_pr_add_resv_log(). */
    public synchronized void add(int type, long nsid) {
        counter++;
        if (counter == 0) {
            counter = 1;
        }
        if (queue.size() == CAPACITY) {
            lost++;
            return;
        }
        queue.add(new Entry(counter, type, nsid));
    }

    /** The page a Get Log Page 80h reads: the oldest notification (removed), or the empty page. */
    public synchronized ReservationNotificationLog take() {
        Entry e = queue.poll();
        if (e == null) {
            return ReservationNotificationLog.EMPTY;
        }
        long lostHere;
        Entry next = queue.peek();
        if (next != null) {
            lostHere = next.count > e.count ? next.count - e.count - 1 : -1L - e.count + next.count - 1;
        } else {
            lostHere = lost;
        }
        lost -= lostHere;
        long count = e.count + lostHere;
        return new ReservationNotificationLog(count == 0 ? 1 : count, e.type, Math.min(queue.size(), 0xFF),
                e.nsid);
    }

    public synchronized int pending() {
        return queue.size();
    }
}
