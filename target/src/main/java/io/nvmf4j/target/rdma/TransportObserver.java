package io.nvmf4j.target.rdma;

import io.nvmf4j.target.Request;

/**
 * What the transport tells metrics about (io.nvmf4j.target.metrics implements it). Called on poll-group threads,
 * once per command: implementations must not block and should not allocate. Every event does nothing unless
 * overridden, so an observer names only what it counts.
 */
public interface TransportObserver {

    /** A parsed command starts (namespace resolved for I/O commands). */
    default void commandStarted(Request request) {
    }

    /**
     * A started command ends: answered ({@code responded}, with its status in the CQE) or dropped because its
     * connection ended. {@code latencyNanos} runs from the capsule's arrival to the posting of the response.
     */
    default void commandFinished(Request request, long latencyNanos, boolean responded) {
    }

    /** A host connected a queue (after a successful Connect). */
    default void queueConnected(String subsystemNqn, int qid) {
    }

    /** A connected queue ended. */
    default void queueDisconnected(String subsystemNqn, int qid) {
    }

    /** A peer's connection was refused or ended for {@code reason} (not on the per-command path). */
    default void peerRejected(RejectReason reason) {
    }

    TransportObserver NONE = new TransportObserver() {
    };
}
