package io.nvmf4j.verbs;

/**
 * Why a verbs call failed immediately, with the errno a libibverbs/librdmacm call would return for the same
 * condition (so the ibverbs provider can map errno values one to one).
 */
public enum VerbsErrorCode {
    /** A work queue or completion queue is full ({@code ENOMEM}, as ibv_post_send reports it). */
    QUEUE_FULL(12),
    /** An argument is out of range: too many SGEs, bad length, unknown opcode ({@code EINVAL}). */
    INVALID_ARGUMENT(22),
    /** The queue pair or connection is in a state that does not allow the call ({@code EINVAL} in verbs). */
    INVALID_STATE(22),
    /** A local key does not name a registered region of this protection domain, or the access is outside it. */
    INVALID_KEY(22),
    /** The resource was closed. */
    CLOSED(9),
    /** The peer did not answer in time ({@code ETIMEDOUT}). */
    TIMED_OUT(110),
    /** The peer refused the connection ({@code ECONNREFUSED}). */
    CONNECTION_REFUSED(111),
    /** The connection was reset or broke during setup ({@code ECONNRESET}). */
    CONNECTION_RESET(104),
    /** The peer violated the wire protocol during connection setup ({@code EPROTO}). */
    PROTOCOL_ERROR(71),
    /** A resource limit was reached (STags, queue pairs) ({@code ENOSPC}). */
    NO_RESOURCES(28),
    /** The provider is not present on this machine ({@code ENODEV}). */
    NO_DEVICE(19),
    /** Any other I/O failure ({@code EIO}). */
    IO_ERROR(5);

    private final int errno;

    VerbsErrorCode(int errno) {
        this.errno = errno;
    }

    /** The Linux errno value a native verbs call returns for this condition. */
    public int errno() {
        return errno;
    }
}
