package io.nvmf4j.verbs;

/** Queue pair states ({@code enum ibv_qp_state}). */
public enum QueuePairState {
    RESET,
    INIT,
    /** Ready to receive. */
    RTR,
    /** Ready to send: connected, the data path works. */
    RTS,
    SQD,
    SQE,
    /** Broken (Terminate, connection loss, local error) or disconnected: work requests complete with WR_FLUSH_ERR. */
    ERROR
}
