package io.nvmf4j.cli.rping;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * What one rping run does; the flags of rping.c ({@code -C -S -v -V -d}) plus the provider and a
 * time limit for every wait on the network (rping itself waits forever).
 *
 * @param address  server: where to listen; client: the server to connect to
 * @param count    pings to do ({@code -C}); 0 = until interrupted (client) or until the peer leaves (server)
 * @param size     ping data size ({@code -S}), {@link RpingPattern#MIN_SIZE}..{@link RpingPattern#MAX_SIZE}
 * @param verbose  print every ping's data, as {@code -v} does
 * @param validate check the data ({@code -V}): the client compares what came back with what it sent
 *                 (as rping does); this server also checks what it read against rping's pattern
 * @param debug    print each step ({@code -d})
 * @param provider RDMA provider name, or null for the first one present
 * @param timeout  limit for each wait: connection set-up, accept, every completion
 */
public record RpingOptions(
        InetSocketAddress address, int count, int size, boolean verbose, boolean validate, boolean debug,
        String provider, Duration timeout) {

    /** rping's default port. */
    public static final int DEFAULT_PORT = 7174;

    public RpingOptions {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(timeout, "timeout");
        if (count < 0) {
            throw new IllegalArgumentException("Invalid count " + count);
        }
        if (size < RpingPattern.MIN_SIZE || size > RpingPattern.MAX_SIZE) {
            throw new IllegalArgumentException("Invalid size " + size + " (valid range is " + RpingPattern.MIN_SIZE
                    + " to " + RpingPattern.MAX_SIZE + ")");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
    }
}
