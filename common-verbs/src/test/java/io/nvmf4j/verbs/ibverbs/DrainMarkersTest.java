package io.nvmf4j.verbs.ibverbs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The send CQ drops the flush completion of a closing queue pair's drain marker, and only that, and the close learns
 * that it arrived: the application sees its own completions, a wr_id equal to the marker's included.
 */
class DrainMarkersTest {
    private static final int SUCCESS = 0;
    private static final int WR_FLUSH_ERR = 5;

    @Test
    void theMarkerOfAQueuePairThatWaitsIsTakenOnceAndItsArrivalReportedOnce() {
        DrainMarkers markers = new DrainMarkers();
        assertFalse(markers.anyExpected());
        markers.expect(17);
        assertTrue(markers.anyExpected());
        assertFalse(markers.takeArrival(17));
        assertFalse(markers.take(42, WR_FLUSH_ERR, 17), "an application's flush is the application's");
        assertFalse(markers.take(DrainMarkers.WR_ID, SUCCESS, 17), "a marker only ever completes flushed");
        assertFalse(markers.take(DrainMarkers.WR_ID, WR_FLUSH_ERR, 18), "queue pair 18 posted no marker");
        assertTrue(markers.take(DrainMarkers.WR_ID, WR_FLUSH_ERR, 17));
        assertFalse(markers.anyExpected());
        assertFalse(markers.take(DrainMarkers.WR_ID, WR_FLUSH_ERR, 17), "no drain pending: the application's wr_id");
        assertTrue(markers.takeArrival(17));
        assertFalse(markers.takeArrival(17));
    }

    @Test
    void aMarkerWhosePostFailedIsNotWaitedForAndAReusedQueuePairNumberStartsAfresh() {
        DrainMarkers markers = new DrainMarkers();
        markers.expect(5);
        markers.notPosted(5);
        assertFalse(markers.anyExpected());
        assertFalse(markers.take(DrainMarkers.WR_ID, WR_FLUSH_ERR, 5));

        markers.expect(9);
        assertTrue(markers.take(DrainMarkers.WR_ID, WR_FLUSH_ERR, 9)); // reaped, its close never asked
        markers.expect(9); // a new queue pair with the same number
        assertFalse(markers.takeArrival(9), "the old queue pair's marker is not the new one's");
        assertTrue(markers.take(DrainMarkers.WR_ID, WR_FLUSH_ERR, 9));
        assertTrue(markers.takeArrival(9));
    }
}
