package io.nvmf4j.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A {@link CompletionHandler} that records every CQE, for the tests (allocation is fine here). */
final class Completions implements CompletionHandler {
    private final List<Long> order = new ArrayList<>();
    private final Map<Long, Integer> results = new HashMap<>();
    private final List<Long> duplicates = new ArrayList<>();

    @Override
    public void completed(long userData, int result, int flags) {
        order.add(userData);
        if (results.put(userData, result) != null) {
            duplicates.add(userData);
        }
    }

    int count() {
        return order.size();
    }

    List<Long> order() {
        return order;
    }

    List<Long> duplicates() {
        return duplicates;
    }

    /** The CQE result of {@code userData}; fails the test when it never came. */
    int result(long userData) {
        Integer r = results.get(userData);
        assertTrue(r != null, "no CQE for userData " + userData + "; got " + results.keySet());
        return r;
    }

    /**
     * Submits what is prepared and reaps until {@code total} CQEs have come, waiting for one CQE at a time: a
     * bounded number of rounds (the class-level timeout bounds a wait that never returns).
     */
    void awaitTotal(IoUring ring, int total) throws IoUringException {
        for (int round = 0; round < 4 * total + 16 && count() < total; round++) {
            if (ring.reap(this) == 0) {
                ring.submitAndWait(1);
            }
        }
        assertEquals(total, count(), "CQEs reaped");
    }
}
