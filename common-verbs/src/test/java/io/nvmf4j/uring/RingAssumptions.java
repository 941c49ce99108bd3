package io.nvmf4j.uring;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The one reason a ring test may skip: the host gives no ring (and the reason says why). */
final class RingAssumptions {
    private RingAssumptions() {
    }

    static void assumeRingAvailable() {
        String reason = IoUring.unavailableReason();
        assumeTrue(reason == null, () -> "no io_uring here: " + reason);
    }
}
