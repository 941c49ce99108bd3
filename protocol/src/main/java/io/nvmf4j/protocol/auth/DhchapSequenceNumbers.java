package io.nvmf4j.protocol.auth;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sequence numbers S1/S2 (NVMe Base 2.0, 8.13.5.2: a counter the sender increments per transaction, never 0, which
 * marks "no bidirectional authentication" in a Reply). Like Linux {@code nvme_auth_get_seqnum()}: one counter per
 * process starting at a random value, 0 skipped.
 */
public final class DhchapSequenceNumbers {

    private static final AtomicInteger COUNTER = new AtomicInteger(new SecureRandom().nextInt());

    private DhchapSequenceNumbers() {
    }

    /** The next non-zero 32-bit sequence number, unsigned. */
    public static long next() {
        int v;
        do {
            v = COUNTER.incrementAndGet();
        } while (v == 0);
        return Integer.toUnsignedLong(v);
    }
}
