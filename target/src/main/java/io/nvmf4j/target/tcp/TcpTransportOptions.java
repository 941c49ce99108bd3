package io.nvmf4j.target.tcp;

import io.nvmf4j.protocol.tcp.NegotiatedParameters;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import java.time.Duration;

/**
 * How the NVMe/TCP transport runs: how many poll groups, how long an idle poll group spins before it blocks, how
 * much data-buffer memory each poll group has, what it answers in the ICResp, and the limits that keep a hostile or
 * broken peer from holding the target's resources. Build with {@link #builder}; every option not set keeps the
 * default {@link #defaults()} has.
 *
 * @param pollGroups            poll-group threads, each serving its connections through one selector
 * @param spinBudget            how long an idle poll group busy-polls its sockets before it blocks in the selector
 * @param bufferPoolBytes       data-buffer memory per poll group for R2T'd and read data (in-capsule data has
 *                              buffers of its own per request)
 * @param maxH2cData            MAXH2CDATA of the ICResp: the most data one H2CData PDU may carry (nvmet-tcp's
 *                              {@code NVMET_TCP_MAXH2CDATA}, 4 MiB)
 * @param icReqTimeout          how long an accepted connection may go without its ICReq before it is closed
 *                              (nvmet-tcp has no such timer; its hosts send the ICReq at once)
 * @param connectTimeout        how long an accepted connection may go without a successful NVMe Connect
 * @param commandTimeout        how long the target waits for the H2CData of an R2T, or for the peer to take a
 *                              response or read data it sent, before it ends the connection (the host's own I/O
 *                              timeout is 30 s, so a live host is never cut off by this)
 * @param maxUnconnected        connections over the whole transport that have not completed ICReq and Connect; more
 *                              are closed at accept
 * @param maxUnconnectedPerAddress the same, from one peer IP address
 */
public record TcpTransportOptions(int pollGroups, Duration spinBudget, long bufferPoolBytes, int maxH2cData,
                                  Duration icReqTimeout, Duration connectTimeout, Duration commandTimeout,
                                  int maxUnconnected, int maxUnconnectedPerAddress) {

    /** nvmet-tcp's {@code NVMET_TCP_MAXH2CDATA}. */
    public static final int DEFAULT_MAX_H2C_DATA = 0x400000;
    public static final Duration DEFAULT_ICREQ_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_CONNECT_TIMEOUT = RdmaTransportOptions.DEFAULT_CONNECT_TIMEOUT;
    public static final Duration DEFAULT_COMMAND_TIMEOUT = RdmaTransportOptions.DEFAULT_READ_TIMEOUT;
    public static final int DEFAULT_MAX_UNCONNECTED = 256;
    public static final int DEFAULT_MAX_UNCONNECTED_PER_ADDRESS =
            RdmaTransportOptions.DEFAULT_MAX_UNCONNECTED_PER_ADDRESS;

    /** Checks every option; {@link Builder#build} is the one caller (the record needs it public). */
    public TcpTransportOptions {
        if (pollGroups < 1) {
            throw new IllegalArgumentException("poll groups must be at least 1, got " + pollGroups);
        }
        if (spinBudget == null || spinBudget.isNegative()) {
            throw new IllegalArgumentException("spin budget must be zero or positive");
        }
        if (bufferPoolBytes < 4096) {
            throw new IllegalArgumentException("buffer pool of " + bufferPoolBytes + " bytes is too small");
        }
        if (maxH2cData < NegotiatedParameters.MIN_MAX_H2C_DATA || maxH2cData % 4 != 0) {
            throw new IllegalArgumentException("MAXH2CDATA " + maxH2cData + " is not a multiple of 4 of at least "
                    + NegotiatedParameters.MIN_MAX_H2C_DATA);
        }
        requirePositive("ICReq timeout", icReqTimeout);
        requirePositive("connect timeout", connectTimeout);
        requirePositive("command timeout", commandTimeout);
        if (maxUnconnected < 1 || maxUnconnectedPerAddress < 1) {
            throw new IllegalArgumentException("limits of unconnected connections must be at least 1");
        }
    }

    private static void requirePositive(String what, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive");
        }
    }

    /** Every option at its default. */
    public static TcpTransportOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options, to change some of them. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.pollGroups = pollGroups;
        b.spinBudget = spinBudget;
        b.bufferPoolBytes = bufferPoolBytes;
        b.maxH2cData = maxH2cData;
        b.icReqTimeout = icReqTimeout;
        b.connectTimeout = connectTimeout;
        b.commandTimeout = commandTimeout;
        b.maxUnconnected = maxUnconnected;
        b.maxUnconnectedPerAddress = maxUnconnectedPerAddress;
        return b;
    }

    /** Mutable builder with the defaults above; {@link #build} checks the values. */
    public static final class Builder {
        private int pollGroups = RdmaTransportOptions.defaultPollGroups();
        private Duration spinBudget = Duration.ofNanos(100_000);
        private long bufferPoolBytes = 32L << 20;
        private int maxH2cData = DEFAULT_MAX_H2C_DATA;
        private Duration icReqTimeout = DEFAULT_ICREQ_TIMEOUT;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private int maxUnconnected = DEFAULT_MAX_UNCONNECTED;
        private int maxUnconnectedPerAddress = DEFAULT_MAX_UNCONNECTED_PER_ADDRESS;

        private Builder() {
        }

        public Builder pollGroups(int v) { this.pollGroups = v; return this; }
        public Builder spinBudget(Duration v) { this.spinBudget = v; return this; }
        public Builder bufferPoolBytes(long v) { this.bufferPoolBytes = v; return this; }
        public Builder maxH2cData(int v) { this.maxH2cData = v; return this; }
        public Builder icReqTimeout(Duration v) { this.icReqTimeout = v; return this; }
        public Builder connectTimeout(Duration v) { this.connectTimeout = v; return this; }
        public Builder commandTimeout(Duration v) { this.commandTimeout = v; return this; }
        public Builder maxUnconnected(int v) { this.maxUnconnected = v; return this; }
        public Builder maxUnconnectedPerAddress(int v) { this.maxUnconnectedPerAddress = v; return this; }

        public TcpTransportOptions build() {
            return new TcpTransportOptions(pollGroups, spinBudget, bufferPoolBytes, maxH2cData, icReqTimeout,
                    connectTimeout, commandTimeout, maxUnconnected, maxUnconnectedPerAddress);
        }
    }
}
