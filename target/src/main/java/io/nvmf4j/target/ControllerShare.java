package io.nvmf4j.target;

/**
 * The share of a subsystem's controllers one peer may hold (issue 27): at most {@code perHostNqn} live controllers
 * of one subsystem for one host NQN, and at most {@code perAddress} for one source address, so that one host, or
 * one machine posing as many hosts, cannot take every controller ID and lock the others out with Connect
 * Controller Busy. It plays for controllers the part the transport's per-address share of unconnected queues
 * plays for RDMA connections. Linux's nvmet has no such share (a subsystem's controllers go to whoever connects
 * first, up to cntlid_max); the defaults are far above what one host uses (one controller per path and
 * association), so a legitimate setup sees Linux's behaviour.
 *
 * <p>A Connect over the share is answered Connect Controller Busy (SCT 1h SC 81h, DNR), what nvmet answers when
 * it has no controller ID to give, and is logged once and counted as {@code controller_share} in
 * {@code nvmf4j_rejected_total}.
 *
 * @param perHostNqn most live controllers per subsystem for one host NQN
 * @param perAddress most live controllers per subsystem whose admin queue comes from one source address
 */
public record ControllerShare(int perHostNqn, int perAddress) {

    /** Default {@link #perHostNqn()}. */
    public static final int DEFAULT_PER_HOST_NQN = 32;
    /** Default {@link #perAddress()}, as the transport's default share of unconnected queues per address. */
    public static final int DEFAULT_PER_ADDRESS = 64;
    /** The prefix of a refusal's text that marks a Connect refused for its share (the transport's metric reason). */
    public static final String REFUSAL_PREFIX = "controller share: ";

    public ControllerShare {
        if (perHostNqn < 1 || perAddress < 1) {
            throw new IllegalArgumentException("controller shares must be at least 1: per host NQN " + perHostNqn
                    + ", per address " + perAddress);
        }
    }

    public static ControllerShare defaults() {
        return new ControllerShare(DEFAULT_PER_HOST_NQN, DEFAULT_PER_ADDRESS);
    }

    /** True when a refusal text ({@code Request#refusal()}) is one of this share's. */
    public static boolean isShareRefusal(String refusal) {
        return refusal != null && refusal.startsWith(REFUSAL_PREFIX);
    }
}
