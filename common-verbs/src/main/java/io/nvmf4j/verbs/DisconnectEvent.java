package io.nvmf4j.verbs;

import java.util.Objects;

/**
 * Why a connection ended ({@code RDMA_CM_EVENT_DISCONNECTED} and friends).
 *
 * @param cause  the kind of end
 * @param detail one sentence for logs (e.g. the RFC 5040 Terminate layer/type/code)
 */
public record DisconnectEvent(Cause cause, String detail) {
    public DisconnectEvent {
        Objects.requireNonNull(cause, "cause");
        Objects.requireNonNull(detail, "detail");
    }

    /** The kinds of end. */
    public enum Cause {
        /** This side called {@link RdmaConnection#disconnect()} or closed the connection. */
        LOCAL_DISCONNECT,
        /** The peer closed the connection in an orderly way. */
        PEER_DISCONNECT,
        /** This side detected a protocol or protection error and sent a Terminate. */
        TERMINATE_SENT,
        /** The peer sent a Terminate. */
        TERMINATE_RECEIVED,
        /** The transport broke (reset, timeout, I/O error). */
        TRANSPORT_ERROR
    }
}
