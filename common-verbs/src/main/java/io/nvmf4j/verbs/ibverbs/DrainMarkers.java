package io.nvmf4j.verbs.ibverbs;

import java.util.HashSet;
import java.util.Set;

/**
 * The drain markers of one completion queue: the zero-length RDMA Write a closing queue pair posts after its move
 * to ERROR ({@link IbverbsQueuePair#toError}) and waits for before it is destroyed, as Linux's __ib_drain_sq() does
 * before ib_destroy_qp(). The send queue completes in order, so when the marker's flush completion is in the CQ,
 * so are those of every request posted before it (an RDMA Read in flight included). The marker's completion belongs
 * to the provider: whichever poller reaps it records its arrival here and drops it, and the application never sees
 * it.
 *
 * <p>A marker is recognised by its wr_id, its flush status and the number of a queue pair that posted one and waits
 * for it; the sets are touched only on that path, the poll path reads {@link #anyExpected} alone.
 */
final class DrainMarkers {
    /** wr_id of a drain marker ("nvmf4jDR"). */
    static final long WR_ID = 0x6E766D66346A4452L;
    /** IBV_WC_WR_FLUSH_ERR. */
    private static final int WR_FLUSH_ERR = 5;

    private final Set<Integer> pending = new HashSet<>();
    private final Set<Integer> arrived = new HashSet<>();
    private volatile int pendingCount;

    /** Queue pair {@code qpNum}, whose send CQ this is, is about to post a marker (recorded before the post). */
    synchronized void expect(int qpNum) {
        arrived.remove(qpNum); // a queue pair number is reused after its queue pair is destroyed
        pending.add(qpNum);
        pendingCount = pending.size();
    }

    /** The post of the marker of {@code qpNum} failed: no completion will come for it. */
    synchronized void notPosted(int qpNum) {
        pending.remove(qpNum);
        pendingCount = pending.size();
    }

    /** A racy hint for the poll path, so that it looks at wr_ids only while a drain is pending. */
    boolean anyExpected() {
        return pendingCount > 0;
    }

    /**
     * True, with the arrival recorded, when a completion with these fields is the marker a queue pair waits for: the
     * poller drops it.
     */
    boolean take(long wrId, int status, int qpNum) {
        if (wrId != WR_ID || status != WR_FLUSH_ERR) {
            return false;
        }
        synchronized (this) {
            if (!pending.remove(qpNum)) {
                return false;
            }
            arrived.add(qpNum);
            pendingCount = pending.size();
            return true;
        }
    }

    /** True once the marker of {@code qpNum} was reaped (by any poller); the record is consumed. */
    synchronized boolean takeArrival(int qpNum) {
        return arrived.remove(qpNum);
    }
}
