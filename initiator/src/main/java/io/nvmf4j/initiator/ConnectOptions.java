package io.nvmf4j.initiator;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.QueueLimits;
import io.nvmf4j.protocol.auth.DhchapDhGroup;
import io.nvmf4j.protocol.auth.DhchapHash;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.auth.DhchapSecret;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything {@link NvmeController#connect} needs, with nvme-cli's names and Linux's defaults
 * ({@code drivers/nvme/host/fabrics.h}: {@code NVMF_DEF_QUEUE_SIZE} 128, {@code NVME_DEFAULT_KATO} 5 s,
 * {@code NVMF_DEF_CTRL_LOSS_TMO} 600 s, {@code NVMF_DEF_RECONNECT_DELAY} 10 s). Build with {@link #builder}.
 *
 * @param address           traddr:trsvcid ({@code -a}/{@code -s})
 * @param subsystemNqn      {@code -n/--nqn}; the discovery NQN for a discovery controller
 * @param host              host NQN and host ID ({@code -q/--hostnqn}, {@code -I/--hostid})
 * @param ioQueues          {@code -i/--nr-io-queues}; the controller may grant fewer
 * @param queueSize         {@code -Q/--queue-size}: entries per I/O queue, bounded by CAP.MQES+1 and MAXCMD
 * @param keepAliveTimeout  {@code -k/--keep-alive-tmo}; KATO sent in the admin Connect; zero disables keep-alive
 * @param ctrlLossTimeout   {@code -l/--ctrl-loss-tmo}: how long to keep reconnecting before failing all I/O;
 *                          negative: forever (Linux -1)
 * @param reconnectDelay    {@code -c/--reconnect-delay}: pause between reconnect attempts
 * @param connectTimeout    bound on one connection setup, RDMA or TCP with ICReq/ICResp (absent or silent targets
 *                          fail within it)
 * @param commandTimeout    bound on one command (admin or I/O); on expiry the controller is reset like Linux does
 * @param spinBudget        how long a queue's completion loop busy-polls after its last completion before it
 *                          blocks (over RDMA at least 1 ms while commands are outstanding, unless 0;
 *                          docs/ARCHITECTURE.md)
 * @param inCapsuleData     send small writes inside the command capsule when the controller offers it
 * @param bufferSize        size of each pre-registered bounce buffer (copy path); also bounds one command's data
 *                          on that path
 * @param buffersPerQueue   bounce buffers per queue
 * @param provider          RDMA provider name ({@code --provider}), null for automatic choice
 * @param device            RDMA device name, null for the provider's first device
 * @param dhchap            DH-HMAC-CHAP keys ({@code -S/--dhchap-secret}, {@code -C/--dhchap-ctrl-secret}), null
 *                          for none. With a host key every queue authenticates when the Connect response asks
 *                          (AUTHREQ.ATR); with a controller key too, every queue authenticates even unasked and
 *                          requires the controller to prove its key (bidirectional). {@code toString()} never
 *                          shows a key.
 * @param transport         {@code -t/--transport}: "rdma" (the default) or "tcp" (NVMe/TCP, TP 8000)
 * @param headerDigest      {@code --hdr-digest}: ask for PDU header digests (NVMe/TCP only; off by default)
 * @param dataDigest        {@code --data-digest}: ask for PDU data digests (NVMe/TCP only; off by default)
 * @param disableSqFlow     {@code --disable-sqflow}: ask in every Connect that SQ flow control be off (TP 8005; off
 *                          by default, as nvme-cli): the target then keeps no SQ head, and an NVMe/TCP target may
 *                          end a successful read with its data PDU alone (the C2HData SUCCESS flag)
 */
public record ConnectOptions(
        InetSocketAddress address,
        Nqn subsystemNqn,
        HostIdentity host,
        int ioQueues,
        int queueSize,
        Duration keepAliveTimeout,
        Duration ctrlLossTimeout,
        Duration reconnectDelay,
        Duration connectTimeout,
        Duration commandTimeout,
        Duration spinBudget,
        boolean inCapsuleData,
        int bufferSize,
        int buffersPerQueue,
        String provider,
        String device,
        DhchapKeys dhchap,
        String transport,
        boolean headerDigest,
        boolean dataDigest,
        boolean disableSqFlow) {

    /** The transport a controller uses unless told otherwise (nvme-cli's {@code -t rdma}). */
    public static final String TRANSPORT_RDMA = "rdma";
    /** NVMe/TCP (nvme-cli's {@code -t tcp}). */
    public static final String TRANSPORT_TCP = "tcp";

    /** See {@link QueueLimits#DEFAULT_IO_QUEUE_SIZE}. */
    public static final int DEFAULT_QUEUE_SIZE = QueueLimits.DEFAULT_IO_QUEUE_SIZE;
    /** See {@link QueueLimits#ADMIN_QUEUE_SIZE}: the admin queue always has 32 entries. */
    public static final int ADMIN_QUEUE_SIZE = QueueLimits.ADMIN_QUEUE_SIZE;
    /** See {@link QueueLimits#MIN_IO_QUEUE_SIZE}. */
    public static final int MIN_QUEUE_SIZE = QueueLimits.MIN_IO_QUEUE_SIZE;
    /** The options before the transport was one of them: NVMe/RDMA, no digests. */
    public ConnectOptions(InetSocketAddress address, Nqn subsystemNqn, HostIdentity host, int ioQueues,
            int queueSize, Duration keepAliveTimeout, Duration ctrlLossTimeout, Duration reconnectDelay,
            Duration connectTimeout, Duration commandTimeout, Duration spinBudget, boolean inCapsuleData,
            int bufferSize, int buffersPerQueue, String provider, String device, DhchapKeys dhchap) {
        this(address, subsystemNqn, host, ioQueues, queueSize, keepAliveTimeout, ctrlLossTimeout, reconnectDelay,
                connectTimeout, commandTimeout, spinBudget, inCapsuleData, bufferSize, buffersPerQueue, provider,
                device, dhchap, TRANSPORT_RDMA, false, false);
    }

    /** The options before SQ flow control could be turned off: it stays on. */
    public ConnectOptions(InetSocketAddress address, Nqn subsystemNqn, HostIdentity host, int ioQueues,
            int queueSize, Duration keepAliveTimeout, Duration ctrlLossTimeout, Duration reconnectDelay,
            Duration connectTimeout, Duration commandTimeout, Duration spinBudget, boolean inCapsuleData,
            int bufferSize, int buffersPerQueue, String provider, String device, DhchapKeys dhchap, String transport,
            boolean headerDigest, boolean dataDigest) {
        this(address, subsystemNqn, host, ioQueues, queueSize, keepAliveTimeout, ctrlLossTimeout, reconnectDelay,
                connectTimeout, commandTimeout, spinBudget, inCapsuleData, bufferSize, buffersPerQueue, provider,
                device, dhchap, transport, headerDigest, dataDigest, false);
    }

    /** Whether the controller is reached over NVMe/TCP (no RDMA device is opened). */
    public boolean isTcp() {
        return transport.equals(TRANSPORT_TCP);
    }

    /** See {@link QueueLimits#MAX_IO_QUEUE_SIZE}. */
    public static final int MAX_QUEUE_SIZE = QueueLimits.MAX_IO_QUEUE_SIZE;

    public ConnectOptions {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(subsystemNqn, "subsystemNqn");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(keepAliveTimeout, "keepAliveTimeout");
        Objects.requireNonNull(ctrlLossTimeout, "ctrlLossTimeout");
        Objects.requireNonNull(reconnectDelay, "reconnectDelay");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(commandTimeout, "commandTimeout");
        Objects.requireNonNull(spinBudget, "spinBudget");
        Objects.requireNonNull(transport, "transport");
        if (!transport.equals(TRANSPORT_RDMA) && !transport.equals(TRANSPORT_TCP)) {
            throw new IllegalArgumentException("transport " + transport + " is neither rdma nor tcp");
        }
        if (ioQueues < 0 || ioQueues > 65534) {
            throw new IllegalArgumentException("nr-io-queues " + ioQueues + " outside 0..65534");
        }
        if (queueSize < MIN_QUEUE_SIZE || queueSize > MAX_QUEUE_SIZE) {
            throw new IllegalArgumentException(
                    "queue-size " + queueSize + " outside " + MIN_QUEUE_SIZE + ".." + MAX_QUEUE_SIZE + " (as Linux)");
        }
        if (bufferSize < 4096 || Integer.bitCount(bufferSize) != 1) {
            throw new IllegalArgumentException("buffer size " + bufferSize + " must be a power of two >= 4096");
        }
        if (buffersPerQueue < 1) {
            throw new IllegalArgumentException("buffers per queue must be at least 1");
        }
        if (connectTimeout.isNegative() || connectTimeout.isZero() || commandTimeout.isNegative()
                || commandTimeout.isZero()) {
            throw new IllegalArgumentException("connect and command timeouts must be positive");
        }
    }

    public static Builder builder(InetSocketAddress address, Nqn subsystemNqn) {
        return new Builder(address, subsystemNqn);
    }

    /** Options for the discovery controller at {@code address}: no I/O queues, no keep-alive (as nvme discover). */
    public static Builder discovery(InetSocketAddress address) {
        return new Builder(address, Nqn.DISCOVERY).ioQueues(0).keepAliveTimeout(Duration.ZERO);
    }

    public boolean isDiscovery() {
        return subsystemNqn.isDiscovery();
    }

    public Builder toBuilder() {
        Builder b = new Builder(address, subsystemNqn);
        b.host = host;
        b.ioQueues = ioQueues;
        b.queueSize = queueSize;
        b.keepAliveTimeout = keepAliveTimeout;
        b.ctrlLossTimeout = ctrlLossTimeout;
        b.reconnectDelay = reconnectDelay;
        b.connectTimeout = connectTimeout;
        b.commandTimeout = commandTimeout;
        b.spinBudget = spinBudget;
        b.inCapsuleData = inCapsuleData;
        b.bufferSize = bufferSize;
        b.buffersPerQueue = buffersPerQueue;
        b.provider = provider;
        b.device = device;
        b.transport = transport;
        b.headerDigest = headerDigest;
        b.dataDigest = dataDigest;
        b.disableSqFlow = disableSqFlow;
        if (dhchap != null) {
            b.dhchapSecret = dhchap.key();
            b.dhchapCtrlSecret = dhchap.ctrlKey();
            b.dhchapHashes = dhchap.hashes();
            b.dhchapDhGroups = dhchap.dhGroups();
        }
        return b;
    }

    /** Mutable builder with the defaults above. */
    public static final class Builder {
        private InetSocketAddress address;
        private Nqn subsystemNqn;
        private HostIdentity host;
        private int ioQueues = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
        private int queueSize = DEFAULT_QUEUE_SIZE;
        private Duration keepAliveTimeout = Duration.ofSeconds(5);
        private Duration ctrlLossTimeout = Duration.ofMinutes(10);
        private Duration reconnectDelay = Duration.ofSeconds(10);
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration commandTimeout = Duration.ofSeconds(30);
        private Duration spinBudget = Duration.ofNanos(50_000);
        private boolean inCapsuleData = true;
        private int bufferSize = 128 * 1024;
        private int buffersPerQueue = 32;
        private String provider;
        private String device;
        private String transport = TRANSPORT_RDMA;
        private boolean headerDigest;
        private boolean dataDigest;
        private boolean disableSqFlow;
        private DhchapSecret dhchapSecret;
        private DhchapSecret dhchapCtrlSecret;
        private java.util.Set<DhchapHash> dhchapHashes = java.util.Set.of();
        private java.util.Set<DhchapDhGroup> dhchapDhGroups = java.util.Set.of();

        private Builder(InetSocketAddress address, Nqn subsystemNqn) {
            this.address = address;
            this.subsystemNqn = subsystemNqn;
        }

        public Builder address(InetSocketAddress v) { this.address = v; return this; }
        public Builder subsystemNqn(Nqn v) { this.subsystemNqn = v; return this; }
        public Builder host(HostIdentity v) { this.host = v; return this; }
        public Builder ioQueues(int v) { this.ioQueues = v; return this; }
        public Builder queueSize(int v) { this.queueSize = v; return this; }
        public Builder keepAliveTimeout(Duration v) { this.keepAliveTimeout = v; return this; }
        public Builder ctrlLossTimeout(Duration v) { this.ctrlLossTimeout = v; return this; }
        public Builder reconnectDelay(Duration v) { this.reconnectDelay = v; return this; }
        public Builder connectTimeout(Duration v) { this.connectTimeout = v; return this; }
        public Builder commandTimeout(Duration v) { this.commandTimeout = v; return this; }
        public Builder spinBudget(Duration v) { this.spinBudget = v; return this; }
        public Builder inCapsuleData(boolean v) { this.inCapsuleData = v; return this; }
        public Builder bufferSize(int v) { this.bufferSize = v; return this; }
        public Builder buffersPerQueue(int v) { this.buffersPerQueue = v; return this; }
        public Builder provider(String v) { this.provider = v; return this; }
        public Builder device(String v) { this.device = v; return this; }
        /** "rdma" (default) or "tcp", as nvme-cli's {@code -t}. */
        public Builder transport(String v) { this.transport = v; return this; }
        /** NVMe/TCP header digests ({@code --hdr-digest}). */
        public Builder headerDigest(boolean v) { this.headerDigest = v; return this; }
        /** NVMe/TCP data digests ({@code --data-digest}). */
        public Builder dataDigest(boolean v) { this.dataDigest = v; return this; }
        public Builder disableSqFlow(boolean v) { this.disableSqFlow = v; return this; }
        /** The host's DH-HMAC-CHAP secret (nvme-cli {@code --dhchap-secret}); null for none. */
        public Builder dhchapSecret(DhchapSecret v) { this.dhchapSecret = v; return this; }
        /** The controller's secret for bidirectional authentication ({@code --dhchap-ctrl-secret}). */
        public Builder dhchapCtrlSecret(DhchapSecret v) { this.dhchapCtrlSecret = v; return this; }
        /** Hash functions to offer (empty: all three, SHA-256 first, as Linux). */
        public Builder dhchapHashes(java.util.Set<DhchapHash> v) { this.dhchapHashes = v; return this; }
        /** DH groups to offer (empty: all six, null first, as Linux). */
        public Builder dhchapDhGroups(java.util.Set<DhchapDhGroup> v) { this.dhchapDhGroups = v; return this; }

        public ConnectOptions build() {
            HostIdentity h = host != null ? host : HostIdentity.fromSystem();
            if (dhchapCtrlSecret != null && dhchapSecret == null) {
                // Linux nvmf_parse_options() too: a controller key without a host key is meaningless
                throw new IllegalArgumentException("a DH-HMAC-CHAP controller secret needs a host secret "
                        + "(--dhchap-ctrl-secret requires --dhchap-secret)");
            }
            DhchapKeys keys = dhchapSecret == null ? null
                    : new DhchapKeys(dhchapSecret, dhchapCtrlSecret, dhchapHashes, dhchapDhGroups);
            return new ConnectOptions(address, subsystemNqn, h, ioQueues, queueSize, keepAliveTimeout,
                    ctrlLossTimeout, reconnectDelay, connectTimeout, commandTimeout, spinBudget, inCapsuleData,
                    bufferSize, buffersPerQueue, provider, device, keys, transport, headerDigest, dataDigest,
                    disableSqFlow);
        }
    }
}
