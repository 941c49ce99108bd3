package io.nvmf4j.verbs;

import java.net.InetSocketAddress;
import java.util.function.Consumer;

/**
 * An established connection and its queue pair. When it ends (either side disconnects, a Terminate, a transport
 * error) the queue pair goes to {@link QueuePairState#ERROR}, every outstanding work request completes with
 * {@link WcStatus#WR_FLUSH_ERR}, and the disconnect listeners run once.
 */
public interface RdmaConnection extends AutoCloseable {
    QueuePair queuePair();

    /** The private data the peer sent in its request or reply (for MPA v2, without the IRD/ORD words). */
    byte[] peerPrivateData();

    InetSocketAddress localAddress();

    InetSocketAddress remoteAddress();

    /** True until the connection ends. */
    boolean isConnected();

    /**
     * Registers a listener run once when the connection ends, on a provider thread (keep it short; do not block).
     * Registered after the end, it runs at once on the caller's thread.
     */
    void onDisconnect(Consumer<DisconnectEvent> listener);

    /** Why the connection ended, or null while connected. */
    DisconnectEvent disconnectEvent();

    /** Ends the connection ({@code rdma_disconnect}): outstanding work requests are flushed. Idempotent. */
    void disconnect();

    /** Disconnects and destroys the queue pair. Idempotent. */
    @Override
    void close();
}
