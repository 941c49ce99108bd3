package io.nvmf4j.target.backend;

/**
 * A namespace backend could not complete an operation. Stays inside the target: the I/O command handler maps
 * {@link #kind()} to an NVMe status (like nvmet's {@code errno_to_nvme_status()} / {@code blk_to_nvme_status()}),
 * so nothing of this crosses the wire.
 */
public final class BackendException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The error classes the I/O handler distinguishes; the errno they correspond to in Linux nvmet. */
    public enum Kind {
        /** The LBA range lies outside the namespace (nvmet: -EREMOTEIO / BLK_STS_TARGET). */
        OUT_OF_RANGE,
        /** The backing store refused for lack of space (-ENOSPC / BLK_STS_NOSPC). */
        NO_SPACE,
        /** The backing store does not support the operation (-EOPNOTSUPP / BLK_STS_NOTSUPP). */
        NOT_SUPPORTED,
        /** Any other failure of the backing store (-EIO and the rest). */
        IO_ERROR
    }

    private final Kind kind;
    private final int errno;

    public BackendException(Kind kind, String message) {
        this(kind, 0, message, null);
    }

    public BackendException(Kind kind, int errno, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.errno = errno;
    }

    public Kind kind() {
        return kind;
    }

    /** The errno reported by the system call, 0 when none was involved. */
    public int errno() {
        return errno;
    }

    /**
     * The negative errno an asynchronous completion carries for this failure ({@link BackendCompletion}): the
     * system call's own errno, else the one nvmet's backends would see for the kind.
     */
    public int toResult() {
        if (errno != 0) {
            return -errno;
        }
        return switch (kind) {
            case OUT_OF_RANGE -> -LinuxCalls.EREMOTEIO;
            case NO_SPACE -> -LinuxCalls.ENOSPC;
            case NOT_SUPPORTED -> -LinuxCalls.EOPNOTSUPP;
            case IO_ERROR -> -LinuxCalls.EIO;
        };
    }

    /** Maps a failed system call's errno to a kind (errno_to_nvme_status()'s classes). */
    public static Kind kindOfErrno(int errno) {
        return switch (errno) {
            case LinuxCalls.EREMOTEIO -> Kind.OUT_OF_RANGE;
            case LinuxCalls.ENOSPC -> Kind.NO_SPACE;
            case LinuxCalls.EOPNOTSUPP, LinuxCalls.ENOTTY -> Kind.NOT_SUPPORTED;
            default -> Kind.IO_ERROR;
        };
    }
}
