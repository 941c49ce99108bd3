package io.nvmf4j.verbs;

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

    /** Closes the device and everything created from it; idempotent. */
    @Override
    void close();
}
