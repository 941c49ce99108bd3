package io.nvmf4j.config;

/**
 * nvmf4j's own settings: the {@code "nvmf4j"} section of the file, which nvmetcli ignores. RAM namespaces and
 * per-namespace block sizes from that section are merged into {@link SubsystemConfig#namespaces()} instead.
 *
 * @param provider           verbs provider of the rdma ports (tcp ports need none)
 * @param pollGroups         number of poll-group threads, 0 for half the available processors (at least 1)
 * @param spinBudgetMicros   how long an idle poll group busy-polls before it blocks (bench/tcprr.c: a wake-up costs
 *                           ~55 µs, so spinning a little longer than that keeps latency low)
 * @param bufferCount        registered data buffers per poll group
 * @param bufferSize         bytes per registered data buffer
 * @param maxQueueSize       I/O queue entries for ports that leave {@code param.max_queue_size} at -1
 * @param inlineDataSize     in-capsule data bytes for ports that leave {@code param.inline_data_size} at -1
 *                           (Linux NVMET_RDMA_DEFAULT_INLINE_DATA_SIZE = PAGE_SIZE = 4096)
 * @param mdts               MDTS for ports that leave {@code param.mdts} at -1, a power of two of 4 KiB units
 *                           (Linux NVMET_RDMA_MAX_MDTS = 8, 1 MiB)
 * @param discoveryKatoMillis keep-alive timeout for discovery controllers whose host asks for none
 *                           (Linux NVMET_DISC_KATO_MS = 120000)
 * @param metricsPort        HTTP port for Prometheus {@code /metrics}, or null for no metrics endpoint
 * @param defaultBlockSize   LBA size of namespaces that do not set one, 512 or 4096
 * @param backendIo          how file and block-device namespaces run their I/O: {@code auto} (io_uring where the
 *                           kernel offers it, else worker threads), {@code uring} or {@code threads}
 * @param backendTimeoutMillis how long one backend operation may take before its command is answered Command
 *                           Interrupted (20000; a Linux host waits 30 s before it resets the controller)
 * @param maxControllersPerHost    most live controllers of one subsystem for one host NQN
 * @param maxControllersPerAddress most live controllers of one subsystem from one source address
 */
public record Nvmf4jSettings(
        Provider provider,
        int pollGroups,
        int spinBudgetMicros,
        int bufferCount,
        int bufferSize,
        int maxQueueSize,
        int inlineDataSize,
        int mdts,
        int discoveryKatoMillis,
        Integer metricsPort,
        int defaultBlockSize,
        String backendIo,
        int backendTimeoutMillis,
        int maxControllersPerHost,
        int maxControllersPerAddress) {

    public static final int DEFAULT_INLINE_DATA_SIZE = 4096;
    /** Linux NVMET_RDMA_MAX_INLINE_DATA_SIZE = max(16 KiB, PAGE_SIZE). */
    public static final int MAX_INLINE_DATA_SIZE = 16384;
    /** Linux NVMET_MIN_QUEUE_SIZE / NVMET_MAX_QUEUE_SIZE. */
    public static final int MIN_QUEUE_SIZE = 16;
    public static final int MAX_QUEUE_SIZE = 1024;
    public static final int MAX_MDTS = 12;
    /** The values {@code backend_io.mode} takes. */
    public static final java.util.List<String> BACKEND_IO_MODES = java.util.List.of("auto", "uring", "threads");
    public static final int DEFAULT_BACKEND_TIMEOUT_MILLIS = 20_000;
    /** Defaults of the controller share (the target's {@code ControllerShare}: 32 per host NQN, 64 per address). */
    public static final int DEFAULT_MAX_CONTROLLERS_PER_HOST = 32;
    public static final int DEFAULT_MAX_CONTROLLERS_PER_ADDRESS = 64;

    /** The settings with the default backend I/O and controller share. */
    public Nvmf4jSettings(Provider provider, int pollGroups, int spinBudgetMicros, int bufferCount, int bufferSize,
            int maxQueueSize, int inlineDataSize, int mdts, int discoveryKatoMillis, Integer metricsPort,
            int defaultBlockSize) {
        this(provider, pollGroups, spinBudgetMicros, bufferCount, bufferSize, maxQueueSize, inlineDataSize, mdts,
                discoveryKatoMillis, metricsPort, defaultBlockSize, "auto", DEFAULT_BACKEND_TIMEOUT_MILLIS,
                DEFAULT_MAX_CONTROLLERS_PER_HOST, DEFAULT_MAX_CONTROLLERS_PER_ADDRESS);
    }

    /** These settings with the backend I/O fields replaced. */
    public Nvmf4jSettings withBackendIo(String mode, int timeoutMillis) {
        return new Nvmf4jSettings(provider, pollGroups, spinBudgetMicros, bufferCount, bufferSize, maxQueueSize,
                inlineDataSize, mdts, discoveryKatoMillis, metricsPort, defaultBlockSize, mode, timeoutMillis,
                maxControllersPerHost, maxControllersPerAddress);
    }

    /** These settings with another controller share. */
    public Nvmf4jSettings withControllerShare(int perHost, int perAddress) {
        return new Nvmf4jSettings(provider, pollGroups, spinBudgetMicros, bufferCount, bufferSize, maxQueueSize,
                inlineDataSize, mdts, discoveryKatoMillis, metricsPort, defaultBlockSize, backendIo,
                backendTimeoutMillis, perHost, perAddress);
    }

    public static Nvmf4jSettings defaults() {
        return new Nvmf4jSettings(Provider.AUTO, 0, 100, 256, 131072, 128, DEFAULT_INLINE_DATA_SIZE, 8, 120_000,
                null, 512);
    }
}
