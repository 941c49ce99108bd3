package io.nvmf4j.target.tcp;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the accepted connections that have not completed ICReq and Connect, over the whole transport and per peer
 * IP address, and refuses more than the bounds ({@link TcpTransportOptions#maxUnconnected()},
 * {@link TcpTransportOptions#maxUnconnectedPerAddress()}): thousands of connections that never get there hold only
 * a bounded count, and one address cannot take every slot. Touched on accept (the listeners' threads) and when a
 * connection connects or ends (its poll group's thread), never per command; thread-safe.
 */
final class UnconnectedLimits {

    private final int maxTotal;
    private final int maxPerAddress;
    private final AtomicInteger total = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

    UnconnectedLimits(int maxTotal, int maxPerAddress) {
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
    }

    /** Counts one more from {@code peer}; null when taken, else which bound refused it. */
    String tryAcquire(InetAddress peer) {
        if (total.incrementAndGet() > maxTotal) {
            total.decrementAndGet();
            return "more than " + maxTotal + " connections without a completed Connect";
        }
        boolean[] taken = {false};
        perAddress.compute(peer, (k, n) -> {
            int current = n == null ? 0 : n;
            if (current >= maxPerAddress) {
                return n;
            }
            taken[0] = true;
            return current + 1;
        });
        if (!taken[0]) {
            total.decrementAndGet();
            return "more than " + maxPerAddress + " connections without a completed Connect from this address";
        }
        return null;
    }

    void release(InetAddress peer) {
        total.decrementAndGet();
        perAddress.computeIfPresent(peer, (k, n) -> n <= 1 ? null : n - 1);
    }

    int total() {
        return total.get();
    }
}
