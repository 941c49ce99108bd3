package io.nvmf4j.verbs;

/**
 * What both ends of connection setup hand the provider: the new queue pair's protection domain, completion queues,
 * sizes and setup hook, and the private data of the request ({@link ConnectParams}) or of the reply
 * ({@link AcceptParams}) - the {@code rdma_create_qp} arguments plus {@code struct rdma_conn_param}, which
 * {@code rdma_connect} and {@code rdma_accept} share. The rdma_cm {@code responder_resources} and
 * {@code initiator_depth} are {@code qpAttributes().ird()} and {@code qpAttributes().ord()}.
 */
public sealed interface ConnectionSetupParams permits AcceptParams, ConnectParams {
    /** The protection domain of the new queue pair. */
    ProtectionDomain pd();

    /** The completion queue of the send queue. */
    CompletionQueue sendCq();

    /** The completion queue of the receive queue (may be the same as {@link #sendCq()}). */
    CompletionQueue recvCq();

    /** Queue sizes and IRD/ORD wanted. */
    QueuePairAttributes qpAttributes();

    /** The private data to send (a copy; empty, never null). */
    byte[] privateData();

    /** Run on the new queue pair before the peer may send (post receives there); never null. */
    QueuePairSetup setup();
}
