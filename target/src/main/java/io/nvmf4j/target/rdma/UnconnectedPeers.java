package io.nvmf4j.target.rdma;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts, per peer IP address and over the whole transport, the accepted connections that have not completed an
 * NVMe Connect, and refuses more than {@code max} from one address: one address cannot take every pre-Connect slot.
 * Touched on accept (the listener's thread) and when a queue connects or goes away (its poll group's thread), never
 * per command; thread-safe.
 */
final class UnconnectedPeers {

    private final int max;
    private final ConcurrentHashMap<InetAddress, Integer> counts = new ConcurrentHashMap<>();

    UnconnectedPeers(int max) {
        this.max = max;
    }

    /** Counts one more unconnected queue from {@code peer}; false (nothing counted) when it has {@code max}. */
    boolean tryAcquire(InetAddress peer) {
        if (peer == null) {
            return true;
        }
        boolean[] taken = {false};
        counts.compute(peer, (k, n) -> {
            int current = n == null ? 0 : n;
            if (current >= max) {
                return n;
            }
            taken[0] = true;
            return current + 1;
        });
        return taken[0];
    }

    void release(InetAddress peer) {
        if (peer != null) {
            counts.computeIfPresent(peer, (k, n) -> n <= 1 ? null : n - 1);
        }
    }

    int count(InetAddress peer) {
        return counts.getOrDefault(peer, 0);
    }
}
