package io.nvmf4j.verbs;

import java.net.InetSocketAddress;
import java.time.Duration;

/** A listening endpoint ({@code rdma_listen}). */
public interface RdmaListener extends AutoCloseable {
    /** The bound address (with the actual port when bound to port 0). */
    InetSocketAddress localAddress();

    /**
     * Waits for the next connection request whose connection setup frame has arrived (for iWARP: a valid MPA
     * request; malformed requests are answered and dropped by the provider, never returned).
     *
     * @return the request, or null if none arrived within {@code timeout}
     * @throws VerbsException CLOSED once the listener is closed
     */
    ConnectRequest accept(Duration timeout) throws VerbsException, InterruptedException;

    /** Stops listening; pending requests are rejected. Idempotent. */
    @Override
    void close();
}
