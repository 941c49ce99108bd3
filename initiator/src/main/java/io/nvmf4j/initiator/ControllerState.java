package io.nvmf4j.initiator;

/** Life of a host-side controller, after Linux {@code enum nvme_ctrl_state} (a subset). */
public enum ControllerState {
    /** Queues are being connected and the controller enabled. */
    CONNECTING,
    /** Ready for I/O. */
    LIVE,
    /** The connection broke; reconnecting every reconnect-delay until ctrl-loss-tmo. I/O waits. */
    RECONNECTING,
    /** close() was called. */
    DELETING,
    /** Gone for good: closed, or ctrl-loss-tmo expired. I/O fails with {@link NvmfControllerLostException}. */
    DEAD
}
