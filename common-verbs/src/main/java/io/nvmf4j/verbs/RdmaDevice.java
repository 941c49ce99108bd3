package io.nvmf4j.verbs;

import java.util.Map;

/**
 * An opened RDMA device (an {@code ibv_context}). Closing it closes every resource created from it.
 */
public interface RdmaDevice extends AutoCloseable {
    /** The device name, e.g. {@code "softiwarp0"}. */
    String name();

    /** The provider that opened this device. */
    String providerName();

    /** The device limits. */
    DeviceAttributes attributes();

    /** Allocates a protection domain ({@code ibv_alloc_pd}). */
    ProtectionDomain allocatePd() throws VerbsException;

    /**
     * Creates a completion queue ({@code ibv_create_cq}). One CQ may serve many queue pairs, as a send CQ, a
     * receive CQ or both.
     *
     * @param entries the minimum number of completions it holds
     */
    CompletionQueue createCompletionQueue(int entries) throws VerbsException;

    /** The connection manager of this device (listen / connect / accept / reject). */
    ConnectionManager connectionManager();

    /**
     * Peers the provider itself refused or cut off before the application saw them (connection floods, MPA
     * timeouts, protocol violations answered with a Terminate), by reason: a fixed, provider-defined set of
     * lower-case labels, every one present from the start (zeros included), never a value a peer chose. Empty
     * where the kernel does this work (ibverbs).
     */
    default Map<String, Long> rejectedPeerCounts() {
        return Map.of();
    }

    /** Closes the device and everything created from it; idempotent. */
    @Override
    void close();
}
