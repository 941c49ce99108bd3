package io.nvmf4j.uring;

/**
 * A ring system call ({@code io_uring_setup}, {@code io_uring_enter}, {@code io_uring_register}, {@code mmap})
 * failed; {@link #errno()} is the errno captured right after the call. The message names both, e.g.
 * {@code "io_uring_setup: EPERM (Operation not permitted)"}. Failures of a single I/O are not exceptions: they come
 * back as a negative {@code result} in the {@link CompletionHandler}.
 */
public final class IoUringException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int errno;

    /**
     * @param call  the system call that failed, as it should read in the message
     * @param errno its errno (positive)
     */
    public IoUringException(String call, int errno) {
        super(call + ": " + Errno.describe(errno));
        this.errno = errno;
    }

    /** The errno the call failed with (positive, e.g. 12 for ENOMEM). */
    public int errno() {
        return errno;
    }
}
