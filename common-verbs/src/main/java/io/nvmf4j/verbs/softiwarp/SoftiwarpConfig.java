package io.nvmf4j.verbs.softiwarp;

import java.time.Duration;

/**
 * softiwarp tuning, read from system properties when a device opens. Defaults follow Linux siw's module
 * defaults (siw_main.c: mpa_crc_required = false, mpa_crc_strict = false, peer_to_peer = false, mpa_version = 2)
 * where siw has one.
 *
 * @param engineSpinNanos    {@code nvmf4j.softiwarp.spinNanos}: how long a progress engine busy-polls its sockets
 *                           after the last progress before it blocks in a Selector (default 50 µs: a thread
 *                           wake-up costs far more than a polled round trip)
 * @param cqSpinNanos        {@code nvmf4j.softiwarp.cqSpinNanos}: how long CompletionQueue.await spins before
 *                           parking (default 50 µs)
 * @param engines            {@code nvmf4j.softiwarp.engines}: progress engine threads per device (default 1);
 *                           queue pairs are spread round-robin
 * @param maxFpduPayload     {@code nvmf4j.softiwarp.maxFpduPayload}: largest DDP payload per FPDU we send. siw sizes
 *                           FPDUs to the TCP MSS (siw_update_tcpseg: mss_cache, 65480 on loopback); Java cannot
 *                           read the MSS, so we use a fixed size (any peer must accept up to 65535-byte ULPDUs):
 *                           default 65472 (64 KiB less 64, near siw's 65480 on loopback): with payloads sent and
 *                           received in place, fewer and larger FPDUs mean fewer syscalls per transfer; 8 KiB was
 *                           best while every payload was copied (bench/README.md)
 * @param crcRequired        {@code nvmf4j.softiwarp.crcRequired}: ask for MPA CRC (siw mpa_crc_required, default
 *                           false); a peer's request for CRC is always honoured (RFC 5044 7.1)
 * @param peerToPeer         {@code nvmf4j.softiwarp.peerToPeer}: request the RFC 6581 RTR handshake as initiator
 *                           (siw peer_to_peer, default false); we then offer a zero-length RDMA Write RTR only
 * @param copyThreshold      {@code nvmf4j.softiwarp.copyThreshold}: FPDUs with at most this much payload are copied
 *                           with their header and CRC into a per-QP direct buffer; larger payloads of regions
 *                           registered from a direct ByteBuffer go out of the registered memory itself, gathered
 *                           with the headers into the same writev (default 4096: a 4 KiB block is copied, 8 KiB
 *                           FPDUs of larger transfers are not; a payload of any other region is always copied)
 * @param inlineProgress     {@code nvmf4j.softiwarp.inlineProgress}: a consumer polling a completion queue reads its
 *                           queue pairs' sockets itself while the engine parks (default true; false keeps every
 *                           socket on the engine thread, the model before, for comparison)
 * @param mpaTimeout         {@code nvmf4j.softiwarp.mpaTimeoutMillis}: how long a listener waits for the MPA
 *                           request of an accepted TCP connection (siw's MPA timer, default 10 s), and how long a
 *                           valid request waits for the application to accept or reject it
 * @param maxPendingPerListener {@code nvmf4j.softiwarp.maxPendingPerListener}: TCP connections a listener holds
 *                           before their MPA request is in (default 128, like a listen backlog); beyond it the
 *                           oldest is closed
 * @param maxPendingPerPeer  {@code nvmf4j.softiwarp.maxPendingPerPeer}: the same per peer IP address (default 16);
 *                           beyond it that address's oldest is closed, so a flood delays but does not lock out a
 *                           client that sends its MPA request at once
 * @param terminateLinger    {@code nvmf4j.softiwarp.terminateLingerMillis}: how long the progress engine keeps
 *                           trying to deliver a Terminate to a peer that does not read, and then, with the
 *                           output shut down behind it, discards the peer's input waiting for it to close, before
 *                           it closes the socket (default 500 ms each; no thread waits for it)
 */
public record SoftiwarpConfig(long engineSpinNanos, long cqSpinNanos, int engines, int maxFpduPayload,
                              boolean crcRequired, boolean peerToPeer, Duration mpaTimeout, int copyThreshold,
                              boolean inlineProgress, int maxPendingPerListener, int maxPendingPerPeer,
                              Duration terminateLinger) {

    static final int DEFAULT_MAX_PENDING_PER_LISTENER = 128;
    static final int DEFAULT_MAX_PENDING_PER_PEER = 16;
    static final Duration DEFAULT_TERMINATE_LINGER = Duration.ofMillis(500);

    /** Largest DDP payload of one FPDU: the 16-bit MPA length minus the largest DDP/RDMAP header. */
    public static final int MAX_FPDU_PAYLOAD_LIMIT = 65535 - 46;

    public SoftiwarpConfig {
        if (engines < 1 || maxFpduPayload < 1 || maxFpduPayload > MAX_FPDU_PAYLOAD_LIMIT || engineSpinNanos < 0
                || cqSpinNanos < 0 || copyThreshold < 0 || copyThreshold > MAX_FPDU_PAYLOAD_LIMIT
                || maxPendingPerListener < 1 || maxPendingPerPeer < 1 || mpaTimeout.isNegative()
                || mpaTimeout.isZero() || terminateLinger.isNegative()) {
            throw new IllegalArgumentException("invalid softiwarp configuration");
        }
    }

    /** The configuration with the default pending-connection limits and Terminate linger. */
    public SoftiwarpConfig(long engineSpinNanos, long cqSpinNanos, int engines, int maxFpduPayload,
                           boolean crcRequired, boolean peerToPeer, Duration mpaTimeout, int copyThreshold,
                           boolean inlineProgress) {
        this(engineSpinNanos, cqSpinNanos, engines, maxFpduPayload, crcRequired, peerToPeer, mpaTimeout,
                copyThreshold, inlineProgress, DEFAULT_MAX_PENDING_PER_LISTENER, DEFAULT_MAX_PENDING_PER_PEER,
                DEFAULT_TERMINATE_LINGER);
    }

    /** This configuration with other connection-setup limits (listener cap, per-address cap, MPA timeout). */
    public SoftiwarpConfig withSetupLimits(int perListener, int perPeer, Duration timeout) {
        return new SoftiwarpConfig(engineSpinNanos, cqSpinNanos, engines, maxFpduPayload, crcRequired, peerToPeer,
                timeout, copyThreshold, inlineProgress, perListener, perPeer, terminateLinger);
    }

    /** This configuration with another Terminate linger time. */
    public SoftiwarpConfig withTerminateLinger(Duration linger) {
        return new SoftiwarpConfig(engineSpinNanos, cqSpinNanos, engines, maxFpduPayload, crcRequired, peerToPeer,
                mpaTimeout, copyThreshold, inlineProgress, maxPendingPerListener, maxPendingPerPeer, linger);
    }

    /** The configuration with inline progress on. */
    public SoftiwarpConfig(long engineSpinNanos, long cqSpinNanos, int engines, int maxFpduPayload,
                           boolean crcRequired, boolean peerToPeer, Duration mpaTimeout, int copyThreshold) {
        this(engineSpinNanos, cqSpinNanos, engines, maxFpduPayload, crcRequired, peerToPeer, mpaTimeout,
                copyThreshold, true);
    }

    /** The configuration with the default copy threshold. */
    public SoftiwarpConfig(long engineSpinNanos, long cqSpinNanos, int engines, int maxFpduPayload,
                           boolean crcRequired, boolean peerToPeer, Duration mpaTimeout) {
        this(engineSpinNanos, cqSpinNanos, engines, maxFpduPayload, crcRequired, peerToPeer, mpaTimeout,
                DEFAULT_COPY_THRESHOLD);
    }

    static final int DEFAULT_COPY_THRESHOLD = 4096;
    static final int DEFAULT_MAX_FPDU_PAYLOAD = 65472;

    public static SoftiwarpConfig fromSystemProperties() {
        return new SoftiwarpConfig(
                Long.getLong("nvmf4j.softiwarp.spinNanos", 50_000L),
                Long.getLong("nvmf4j.softiwarp.cqSpinNanos", 50_000L),
                Integer.getInteger("nvmf4j.softiwarp.engines", 1),
                Math.min(MAX_FPDU_PAYLOAD_LIMIT, Integer.getInteger("nvmf4j.softiwarp.maxFpduPayload", DEFAULT_MAX_FPDU_PAYLOAD)) & ~3,
                Boolean.getBoolean("nvmf4j.softiwarp.crcRequired"),
                Boolean.getBoolean("nvmf4j.softiwarp.peerToPeer"),
                Duration.ofMillis(Long.getLong("nvmf4j.softiwarp.mpaTimeoutMillis", 10_000L)),
                Math.min(MAX_FPDU_PAYLOAD_LIMIT,
                        Integer.getInteger("nvmf4j.softiwarp.copyThreshold", DEFAULT_COPY_THRESHOLD)),
                Boolean.parseBoolean(System.getProperty("nvmf4j.softiwarp.inlineProgress", "true")),
                Integer.getInteger("nvmf4j.softiwarp.maxPendingPerListener", DEFAULT_MAX_PENDING_PER_LISTENER),
                Integer.getInteger("nvmf4j.softiwarp.maxPendingPerPeer", DEFAULT_MAX_PENDING_PER_PEER),
                Duration.ofMillis(Long.getLong("nvmf4j.softiwarp.terminateLingerMillis",
                        DEFAULT_TERMINATE_LINGER.toMillis())));
    }
}
