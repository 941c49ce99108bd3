package io.nvmf4j.verbs.ibverbs;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Tunables of the ibverbs provider, read from system properties so that the CLI and tests can set them without an
 * API of their own.
 *
 * @param spinNanos      how long {@code CompletionQueue.await} busy-polls before it arms the completion channel and
 *                       sleeps in poll(2) ({@code nvmf4j.ibverbs.spinMicros}, default 20 µs; waking a thread costs
 *                       about 55 µs on the reference machine, bench/tcprr.c); {@code -1} never sleeps (pure busy
 *                       polling)
 * @param acceptTimeout  how long {@code ConnectRequest.accept} waits for RDMA_CM_EVENT_ESTABLISHED
 *                       ({@code nvmf4j.ibverbs.acceptTimeoutMillis}, default 10 s)
 * @param defaultDevice  the device {@code openDevice(null)} opens ({@code nvmf4j.ibverbs.device}; null: the first
 *                       one librdmacm lists)
 * @param verbsSysfs     where the kernel lists the RDMA devices user space may open, one {@code uverbsN} entry
 *                       each ({@code nvmf4j.ibverbs.sysfs}, default {@value #DEFAULT_VERBS_SYSFS}): libibverbs finds
 *                       its devices there, so without an entry the provider is unavailable before any native code
 *                       is touched
 */
record IbverbsConfig(long spinNanos, Duration acceptTimeout, String defaultDevice, Path verbsSysfs) {

    static final String DEFAULT_VERBS_SYSFS = "/sys/class/infiniband_verbs";

    static IbverbsConfig fromSystemProperties() {
        long spinMicros = Long.getLong("nvmf4j.ibverbs.spinMicros", 20);
        long acceptMillis = Long.getLong("nvmf4j.ibverbs.acceptTimeoutMillis", 10_000);
        String device = System.getProperty("nvmf4j.ibverbs.device");
        return new IbverbsConfig(spinMicros < 0 ? -1 : spinMicros * 1_000, Duration.ofMillis(acceptMillis),
                device == null || device.isBlank() ? null : device,
                Path.of(System.getProperty("nvmf4j.ibverbs.sysfs", DEFAULT_VERBS_SYSFS)));
    }

    boolean busyPolling() {
        return spinNanos < 0;
    }
}
