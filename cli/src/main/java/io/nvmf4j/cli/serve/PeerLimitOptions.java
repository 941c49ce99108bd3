package io.nvmf4j.cli.serve;

import io.nvmf4j.cli.perf.SizeConverter;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code serve}'s limits on what a peer that has not completed NVMe Connect can hold (README "Security"): the
 * transport's ({@link RdmaTransportOptions}) and, for the softiwarp provider, its listener's. Unset flags keep the
 * defaults; every value is range-checked here, so a bad one is a usage error naming the flag.
 */
final class PeerLimitOptions {

    @Option(names = "--connect-timeout", paramLabel = "SECONDS",
            description = "close an RDMA connection that has not completed NVMe Connect after this long (default 10)")
    Integer connectTimeoutSeconds;

    @Option(names = "--rdma-read-timeout", paramLabel = "SECONDS",
            description = "end a connection whose host leaves an RDMA Read of its data unanswered this long (default 10)")
    Integer readTimeoutSeconds;

    @Option(names = "--max-unconnected-per-address", paramLabel = "N",
            description = "RDMA connections without a completed Connect from one peer address (default 64)")
    Integer maxUnconnectedPerAddress;

    @Option(names = "--max-unconnected-per-group", paramLabel = "N",
            description = "RDMA connections without a completed Connect per poll group (default 128)")
    Integer maxUnconnectedPerGroup;

    @Option(names = "--max-controllers-per-host", paramLabel = "N",
            description = "live controllers of one subsystem one host NQN may hold; one more Connect is Controller "
                    + "Busy (default 32; the config file's nvmf4j.controller_share.per_host_nqn)")
    Integer maxControllersPerHost;

    @Option(names = "--max-controllers-per-address", paramLabel = "N",
            description = "live controllers of one subsystem whose admin queue comes from one peer address "
                    + "(default 64; the config file's nvmf4j.controller_share.per_address)")
    Integer maxControllersPerAddress;

    @Option(names = "--queue-buffer-limit", paramLabel = "SIZE", converter = SizeConverter.class,
            description = "most data-buffer memory one queue may hold (default: a quarter of the poll group's pool)")
    Long queueBufferBytes;

    @Option(names = "--mpa-timeout", paramLabel = "SECONDS",
            description = "softiwarp: close a TCP connection whose MPA request is not complete after this long, and "
                    + "refuse a connect request not accepted in that time (default 10, siw's MPA timer)")
    Integer mpaTimeoutSeconds;

    @Option(names = "--max-pending-per-peer", paramLabel = "N",
            description = "softiwarp: TCP connections one peer address may hold before its MPA request (default 16)")
    Integer maxPendingPerPeer;

    @Option(names = "--max-pending-per-listener", paramLabel = "N",
            description = "softiwarp: TCP connections a listener holds before their MPA request (default 128)")
    Integer maxPendingPerListener;

    /** Checks every given value; the message names the flag. */
    void validate() {
        positive("--connect-timeout", connectTimeoutSeconds);
        positive("--rdma-read-timeout", readTimeoutSeconds);
        positive("--max-unconnected-per-address", maxUnconnectedPerAddress);
        positive("--max-unconnected-per-group", maxUnconnectedPerGroup);
        positive("--max-controllers-per-host", maxControllersPerHost);
        positive("--max-controllers-per-address", maxControllersPerAddress);
        positive("--mpa-timeout", mpaTimeoutSeconds);
        positive("--max-pending-per-peer", maxPendingPerPeer);
        positive("--max-pending-per-listener", maxPendingPerListener);
        if (queueBufferBytes != null && queueBufferBytes < 4096) {
            throw new IllegalArgumentException("nvmf4j serve: --queue-buffer-limit must be at least 4k, got "
                    + queueBufferBytes);
        }
    }

    /**
     * The softiwarp listener reads its limits from system properties when the device opens
     * ({@code SoftiwarpConfig.fromSystemProperties}); set them before the transport starts.
     */
    void applySoftiwarpProperties() {
        if (mpaTimeoutSeconds != null) {
            System.setProperty("nvmf4j.softiwarp.mpaTimeoutMillis", Long.toString(mpaTimeoutSeconds * 1000L));
        }
        if (maxPendingPerPeer != null) {
            System.setProperty("nvmf4j.softiwarp.maxPendingPerPeer", maxPendingPerPeer.toString());
        }
        if (maxPendingPerListener != null) {
            System.setProperty("nvmf4j.softiwarp.maxPendingPerListener", maxPendingPerListener.toString());
        }
    }

    /** The settings with the given controller share applied (the flags win over the config file). */
    io.nvmf4j.config.Nvmf4jSettings apply(io.nvmf4j.config.Nvmf4jSettings s) {
        if (maxControllersPerHost == null && maxControllersPerAddress == null) {
            return s;
        }
        return s.withControllerShare(maxControllersPerHost != null ? maxControllersPerHost : s.maxControllersPerHost(),
                maxControllersPerAddress != null ? maxControllersPerAddress : s.maxControllersPerAddress());
    }

    /** The transport options with the given limits applied. */
    RdmaTransportOptions apply(RdmaTransportOptions o) {
        RdmaTransportOptions.Builder r = o.toBuilder();
        if (connectTimeoutSeconds != null) {
            r.connectTimeout(Duration.ofSeconds(connectTimeoutSeconds));
        }
        if (readTimeoutSeconds != null) {
            r.readTimeout(Duration.ofSeconds(readTimeoutSeconds));
        }
        if (maxUnconnectedPerGroup != null) {
            r.maxUnconnectedPerGroup(maxUnconnectedPerGroup);
        }
        if (maxUnconnectedPerAddress != null) {
            r.maxUnconnectedPerAddress(maxUnconnectedPerAddress);
        }
        if (queueBufferBytes != null) {
            r.queueBufferBytes(queueBufferBytes);
        }
        return r.build();
    }

    private static void positive(String flag, Integer value) {
        if (value != null && value < 1) {
            throw new IllegalArgumentException("nvmf4j serve: " + flag + " must be at least 1, got " + value);
        }
    }
}
