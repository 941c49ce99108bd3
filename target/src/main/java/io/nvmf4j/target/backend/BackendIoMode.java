package io.nvmf4j.target.backend;

import io.nvmf4j.uring.IoUring;
import java.util.Locale;

/**
 * How file and block-device namespaces run their I/O off the poll-group threads (nvmf4j serve {@code --backend-io},
 * the configuration's {@code nvmf4j.backend_io}).
 */
public enum BackendIoMode {
    /** One io_uring per poll group, reaped by its loop (SPDK's uring bdev); where io_uring is missing, THREADS. */
    AUTO,
    /** io_uring; refused at start where the kernel does not offer it. */
    URING,
    /**
     * A bounded worker pool per namespace running pread/pwrite/fdatasync, completions handed back to the poll
     * group (nvmet's {@code buffered_io} work queue). For kernels, containers and seccomp profiles without io_uring.
     */
    THREADS;

    private static final System.Logger LOG = System.getLogger(BackendIoMode.class.getName());

    /** Parses {@code auto}, {@code uring}, {@code threads} (any case). */
    public static BackendIoMode parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("backend I/O must be auto, uring or threads, not \"" + text + "\"");
        }
    }

    /**
     * The mode to run: AUTO becomes URING where {@link IoUring#unavailableReason()} has nothing against it and
     * THREADS otherwise, with one log line saying which and why. URING where io_uring is missing fails with the
     * reason.
     */
    public BackendIoMode resolve() {
        if (this == THREADS) {
            return THREADS;
        }
        String reason = IoUring.unavailableReason();
        if (reason == null) {
            return URING;
        }
        if (this == URING) {
            throw new IllegalStateException("--backend-io uring: io_uring is not available here: " + reason);
        }
        LOG.log(System.Logger.Level.INFO, "backend I/O on worker threads: io_uring is not available here ({0})",
                reason);
        return THREADS;
    }

    /** The name used on the command line and in the configuration. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
