package io.nvmf4j.target.rdma;

/**
 * Why the transport refused or ended a peer's connection: the bounded label set of
 * {@code nvmf4j_rejected_total{reason}}. A peer's input never becomes a label.
 */
public enum RejectReason {
    /** The RDMA-CM request private data was refused (length, record format, QID, HSQSIZE, HRQSIZE). */
    CM_REQUEST("cm_request"),
    /** No completion-queue room or memory for the connection (NO_RSC). */
    NO_RESOURCES("no_resources"),
    /** Too many connections without a completed Connect, per poll group or per peer address (NO_RSC). */
    UNCONNECTED_LIMIT("unconnected_limit"),
    /** No successful Connect within the connect timeout. */
    CONNECT_TIMEOUT("connect_timeout"),
    /** A Connect command failed (unknown subsystem or host, QID mismatch, wrong Host Identifier or address...). */
    CONNECT_REFUSED("connect_refused"),
    /**
     * An admin Connect over the share of a subsystem's controllers one host NQN or one source address may hold
     * ({@link io.nvmf4j.target.ControllerShare}): Controller Busy.
     */
    CONTROLLER_SHARE("controller_share"),
    /** An RDMA Read of host data was not answered within the Read timeout. */
    READ_TIMEOUT("read_timeout"),
    /**
     * The peer took no response within the Read timeout, or left more than its share of the pool in unsent read
     * data ({@link TransmitProgress}).
     */
    TRANSMIT_STALLED("transmit_stalled"),
    /** The peer broke the transport rules (short capsule, a failed receive, Read or Write). */
    PROTOCOL_ERROR("protocol_error"),
    /** An unexpected failure while serving the connection; only that connection ended. */
    INTERNAL_ERROR("internal_error");

    private final String label;

    RejectReason(String label) {
        this.label = label;
    }

    /** The metric label value. */
    public String label() {
        return label;
    }
}
