package io.nvmf4j.verbs;

/**
 * Runs on a new queue pair after it is created and before the connection setup message that lets the peer start
 * sending (the connection request for connect, the reply for accept): the place to pre-post receives, as an
 * rdma_cm user does between {@code rdma_create_qp} and {@code rdma_connect}/{@code rdma_accept}. A Send that
 * arrives with no posted receive breaks the connection (RFC 5041 untagged buffer error), so post them here.
 */
@FunctionalInterface
public interface QueuePairSetup {
    /** Called once, on the connecting/accepting thread. An exception aborts the connection setup. */
    void beforeConnect(QueuePair queuePair) throws VerbsException;

    /** Does nothing. */
    QueuePairSetup NONE = queuePair -> {
    };
}
