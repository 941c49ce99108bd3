package io.nvmf4j.target.backend;

import java.time.Duration;
import java.util.Objects;

/**
 * How the target runs file and block-device I/O (nvmf4j serve {@code --backend-io}, {@code --backend-timeout}; the
 * configuration's {@code nvmf4j.backend_io} and {@code nvmf4j.backend_timeout_ms}).
 *
 * @param mode        io_uring, worker threads, or the first of the two that works here
 * @param timeout     how long a backend operation may run before its command is answered Command Interrupted (a
 *                    retryable status) and the operation abandoned: 20 s by default, inside the 30 s a Linux host
 *                    waits (nvme_io_timeout) before it aborts and resets the controller
 * @param ringEntries submission entries of each poll group's io_uring
 */
public record BackendSettings(BackendIoMode mode, Duration timeout, int ringEntries) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);
    public static final int DEFAULT_RING_ENTRIES = 256;
    public static final BackendSettings DEFAULT = new BackendSettings(BackendIoMode.AUTO, DEFAULT_TIMEOUT,
            DEFAULT_RING_ENTRIES);

    public BackendSettings {
        Objects.requireNonNull(mode, "mode");
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("backend timeout must be positive");
        }
        if (ringEntries < 2 || Integer.bitCount(ringEntries) != 1 || ringEntries > 4096) {
            throw new IllegalArgumentException("io_uring entries must be a power of two from 2 to 4096, got "
                    + ringEntries);
        }
    }

    public BackendSettings withMode(BackendIoMode m) {
        return new BackendSettings(m, timeout, ringEntries);
    }

    public BackendSettings withTimeout(Duration t) {
        return new BackendSettings(mode, t, ringEntries);
    }
}
