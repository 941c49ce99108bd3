package io.nvmf4j.verbs.softiwarp;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts of peers a softiwarp device refused or cut off, by reason: what a target exports as
 * {@code nvmf4j_rejected_total{reason}}. Counting is one atomic add, on setup and error paths only.
 */
public final class RejectedPeers {
    /** Why a peer was refused or its connection ended by us. */
    public enum Reason {
        /** A new TCP connection found the listener at its cap of connections without an MPA request yet. */
        LISTENER_PENDING_LIMIT,
        /** A peer address had as many connections without an MPA request as allowed; its oldest was closed. */
        PEER_PENDING_LIMIT,
        /** No complete MPA request within the MPA timeout (siw's MPA timer). */
        MPA_TIMEOUT,
        /** An invalid MPA request (bad key, revision, markers, private data length, ...). */
        MPA_INVALID,
        /** A valid request found the listener's accept queue full. */
        BACKLOG_FULL,
        /** The application neither accepted nor rejected a request within the MPA timeout. */
        ACCEPT_TIMEOUT,
        /** A connection ended by a Terminate we sent: the peer broke the protocol or a protection rule. */
        TERMINATE_SENT,
        /** The Terminate could not be delivered within the linger time (a peer that does not read). */
        TERMINATE_UNDELIVERED,
        /** An unexpected failure while serving the connection ended it (counted, the engine goes on). */
        ENGINE_FAILURE
    }

    private static final Reason[] REASONS = Reason.values();
    private final AtomicLongArray counts = new AtomicLongArray(REASONS.length);

    void add(Reason reason) {
        counts.incrementAndGet(reason.ordinal());
    }

    /** How many times {@code reason} happened since the device opened. */
    public long count(Reason reason) {
        return counts.get(reason.ordinal());
    }

    /** Every reason with its count (zeros included), in declaration order. */
    public Map<Reason, Long> snapshot() {
        EnumMap<Reason, Long> map = new EnumMap<>(Reason.class);
        for (Reason r : REASONS) {
            map.put(r, counts.get(r.ordinal()));
        }
        return Collections.unmodifiableMap(map);
    }

    /**
     * Every reason's count under its metric label, the reason's name in lower case ({@code mpa_timeout}), in
     * declaration order: {@link io.nvmf4j.verbs.RdmaDevice#rejectedPeerCounts()}.
     */
    public Map<String, Long> byLabel() {
        Map<String, Long> map = new LinkedHashMap<>();
        for (Reason r : REASONS) {
            map.put(r.name().toLowerCase(Locale.ROOT), counts.get(r.ordinal()));
        }
        return Collections.unmodifiableMap(map);
    }

    /** The sum over all reasons. */
    public long total() {
        long sum = 0;
        for (int i = 0; i < REASONS.length; i++) {
            sum += counts.get(i);
        }
        return sum;
    }

    @Override
    public String toString() {
        return "RejectedPeers" + snapshot();
    }
}
