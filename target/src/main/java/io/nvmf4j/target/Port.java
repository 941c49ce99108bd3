package io.nvmf4j.target;

import io.nvmf4j.protocol.QueueLimits;
import io.nvmf4j.protocol.log.AnaState;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.rdma.RdmaProviderType;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A port the target listens on (nvmet's {@code struct nvmet_port} with its {@code disc_addr}): the transport
 * address as the discovery log reports it, transport parameters the controllers advertise (in-capsule data size
 * behind IOCCSZ, the largest queue behind CAP.MQES, MDTS, MSDBD), and the subsystems exported through it.
 *
 * <p>Values are the discovery log encodings (NVMe-oF 1.1, 5.3, Figure 38): {@code trtype} 1 = RDMA,
 * {@code adrfam} 1 = IPv4, 2 = IPv6; for RDMA the TSAS carries QP type (connected), provider type and the
 * connection management service (RDMA_CM). A TCP port ({@code trtype} 3) has the TCP TSAS: security type none.
 */
public final class Port {

    /** nvmet's {@code NVMET_RDMA_DEFAULT_INLINE_DATA_SIZE}: one page of in-capsule data. */
    public static final int DEFAULT_INLINE_DATA_SIZE = 4096;
    /** nvmet-tcp's {@code NVMET_TCP_DEF_INLINE_DATA_SIZE}: four pages of in-capsule data. */
    public static final int DEFAULT_TCP_INLINE_DATA_SIZE = 4 * 4096;
    /** Queue entries per I/O queue the RDMA transport supports (nvmet-rdma {@code NVME_RDMA_MAX_QUEUE_SIZE}). */
    public static final int DEFAULT_MAX_QUEUE_SIZE = QueueLimits.DEFAULT_IO_QUEUE_SIZE;
    /** MDTS as nvmet-rdma reports it: 2^8 pages of 4 KiB = 1 MiB (NVMET_RDMA_MAX_MDTS). */
    public static final int DEFAULT_MDTS = 8;
    /** Admin queue depth the discovery log advertises (ASQSZ, Linux NVME_AQ_DEPTH). */
    public static final int ADMIN_QUEUE_DEPTH = QueueLimits.ADMIN_QUEUE_SIZE;

    private final int portId;
    private final int trtype;
    private final int adrfam;
    private final String traddr;
    private final String trsvcid;
    private final int treq;
    private final RdmaProviderType rdmaProviderType;
    private final int inlineDataSize;
    private final int maxQueueSize;
    private final int mdts;
    private final int msdbd;
    private final List<Subsystem> subsystems = new CopyOnWriteArrayList<>();
    private volatile Runnable subsystemsChanged = () -> { };
    /**
     * ANA state per group ID (index 1..{@value #MAX_ANA_GROUPS}), nvmet's {@code port->ana_state[]}; null where this
     * port defines no such group (served as optimized: a port restricts nothing it was not told to). Replaced
     * whole on a change: the I/O path reads one array.
     */
    private volatile AnaState[] anaStates = initialAnaStates();
    private long anaChangeCount;
    private volatile Runnable anaChanged = () -> { };
    private final List<Referral> referrals = new CopyOnWriteArrayList<>();

    private Port(Builder b) {
        this.portId = b.portId;
        this.trtype = b.trtype;
        this.adrfam = b.adrfam;
        this.traddr = b.traddr;
        this.trsvcid = b.trsvcid;
        this.treq = b.treq;
        this.rdmaProviderType = b.rdmaProviderType;
        this.inlineDataSize = b.inlineDataSize;
        this.maxQueueSize = b.maxQueueSize;
        this.mdts = b.mdts;
        this.msdbd = b.msdbd;
    }

    /** nvmet's NVMET_MAX_ANAGRPS: ANA group IDs 1..128 (Identify Controller ANAGRPMAX, NANAGRPID). */
    public static final int MAX_ANA_GROUPS = 128;
    /** nvmet's NVMET_DEFAULT_ANA_GRPID: every port has it, optimized unless changed. */
    public static final int DEFAULT_ANA_GROUP = 1;

    private static AnaState[] initialAnaStates() {
        AnaState[] states = new AnaState[MAX_ANA_GROUPS + 1];
        states[DEFAULT_ANA_GROUP] = AnaState.OPTIMIZED;
        return states;
    }

    /**
     * A discovery referral (Linux {@code nvmet_referral}): another discovery service, listed in this port's
     * discovery log page as an entry of subtype 1 with the discovery NQN (nvmet_execute_disc_get_log_page()).
     */
    public record Referral(int trtype, int adrfam, String traddr, String trsvcid, int portId, int treq) {
        public Referral {
            Objects.requireNonNull(traddr, "traddr");
            Objects.requireNonNull(trsvcid, "trsvcid");
        }
    }

    /** An RDMA port on {@code traddr:trsvcid}, IPv4 or IPv6 by the form of the address. */
    public static Builder rdma(int portId, String traddr, String trsvcid) {
        return new Builder(portId, DiscoveryLogEntry.TRTYPE_RDMA, traddr, trsvcid, DEFAULT_INLINE_DATA_SIZE);
    }

    /**
     * An NVMe/TCP port on {@code traddr:trsvcid} (trtype 3), IPv4 or IPv6 by the form of the address, with
     * nvmet-tcp's default in-capsule data size ({@link #DEFAULT_TCP_INLINE_DATA_SIZE}).
     */
    public static Builder tcp(int portId, String traddr, String trsvcid) {
        return new Builder(portId, DiscoveryLogEntry.TRTYPE_TCP, traddr, trsvcid, DEFAULT_TCP_INLINE_DATA_SIZE);
    }

    public int portId() {
        return portId;
    }

    public int trtype() {
        return trtype;
    }

    public int adrfam() {
        return adrfam;
    }

    public String traddr() {
        return traddr;
    }

    public String trsvcid() {
        return trsvcid;
    }

    public int treq() {
        return treq;
    }

    /**
     * RDMA provider type of the discovery TSAS: "not specified" unless set, as Linux nvmet reports for every RDMA
     * port (its configfs sets it when the port's trtype is written, whatever the device speaks).
     */
    public RdmaProviderType rdmaProviderType() {
        return rdmaProviderType;
    }

    /** In-capsule data bytes a command capsule may carry after the SQE (0 disables in-capsule data). */
    public int inlineDataSize() {
        return inlineDataSize;
    }

    /** Largest I/O queue, in entries (CAP.MQES + 1). */
    public int maxQueueSize() {
        return maxQueueSize;
    }

    /** Maximum Data Transfer Size as a power of two of 4 KiB pages (0: no limit). */
    public int mdts() {
        return mdts;
    }

    /** Maximum SGL data block descriptors in a command capsule (Identify Controller MSDBD; 1 for nvmet-rdma). */
    public int msdbd() {
        return msdbd;
    }

    /** Largest data transfer in bytes that MDTS allows, or Long.MAX_VALUE without a limit. */
    public long maxDataTransferBytes() {
        return mdts == 0 ? Long.MAX_VALUE : 4096L << mdts;
    }

    /** Exports a subsystem through this port (nvmet: a symlink under ports/N/subsystems). */
    public void addSubsystem(Subsystem subsystem) {
        if (!subsystems.contains(subsystem)) {
            subsystems.add(Objects.requireNonNull(subsystem));
            subsystemsChanged.run();
        }
    }

    public void removeSubsystem(Subsystem subsystem) {
        if (subsystems.remove(subsystem)) {
            subsystemsChanged.run();
        }
    }

    /** The subsystems exported through this port, in the order they were added. */
    public List<Subsystem> subsystems() {
        return List.copyOf(subsystems);
    }

    void onSubsystemsChange(Runnable action) {
        subsystemsChanged = action;
    }

    // ---- Asymmetric Namespace Access (NVMe Base 2.0, 8.1) ----

    /** The state of ANA group {@code grpid} on this port (optimized for a group this port does not define). */
    public AnaState anaState(int grpid) {
        AnaState s = grpid >= 1 && grpid <= MAX_ANA_GROUPS ? anaStates[grpid] : null;
        return s == null ? AnaState.OPTIMIZED : s;
    }

    /** The state the I/O path checks: null when commands on group {@code grpid} are served (no allocation). */
    AnaState inaccessibleState(int grpid) {
        AnaState s = anaStates[grpid];
        return s == null || s.accessible() ? null : s;
    }

    /**
     * Defines ANA group {@code grpid} on this port or changes its state (nvmet_ana_group_ana_state_store()): the
     * change count goes up and every controller connected through this port gets an ANA change notice, without
     * dropping any host.
     */
    public void anaState(int grpid, AnaState state) {
        if (grpid < 1 || grpid > MAX_ANA_GROUPS) {
            throw new IllegalArgumentException("ANA group " + grpid + " outside 1.." + MAX_ANA_GROUPS);
        }
        Objects.requireNonNull(state, "state");
        synchronized (this) {
            AnaState[] next = anaStates.clone();
            if (next[grpid] == state) {
                return;
            }
            next[grpid] = state;
            anaStates = next;
            anaChangeCount++;
        }
        anaChanged.run();
    }

    /** Removes an ANA group other than the default one (nvmet: rmdir of ana_groups/N); its namespaces read optimized. */
    public void removeAnaGroup(int grpid) {
        if (grpid == DEFAULT_ANA_GROUP) {
            throw new IllegalArgumentException("ANA group 1 is the default group of every port");
        }
        synchronized (this) {
            if (grpid < 1 || grpid > MAX_ANA_GROUPS || anaStates[grpid] == null) {
                return;
            }
            AnaState[] next = anaStates.clone();
            next[grpid] = null;
            anaStates = next;
            anaChangeCount++;
        }
        anaChanged.run();
    }

    /** The groups this port defines, by ID (group 1 always). */
    public java.util.SortedMap<Integer, AnaState> anaGroups() {
        AnaState[] s = anaStates;
        java.util.SortedMap<Integer, AnaState> out = new java.util.TreeMap<>();
        for (int g = 1; g <= MAX_ANA_GROUPS; g++) {
            if (s[g] != null) {
                out.put(g, s[g]);
            }
        }
        return out;
    }

    /** The ANA log page change count (CHGCNT): how many ANA changes this port has seen. */
    public synchronized long anaChangeCount() {
        return anaChangeCount;
    }

    void onAnaChange(Runnable action) {
        anaChanged = action;
    }

    // ---- referrals ----

    public void addReferral(Referral referral) {
        referrals.add(Objects.requireNonNull(referral));
        subsystemsChanged.run(); // the discovery log changed
    }

    public void removeReferral(Referral referral) {
        if (referrals.remove(referral)) {
            subsystemsChanged.run();
        }
    }

    /** The referrals the discovery log lists after the subsystems, in the order they were added. */
    public List<Referral> referrals() {
        return List.copyOf(referrals);
    }

    @Override
    public String toString() {
        return "port " + portId + " (" + DiscoveryLogEntry.trtypeName(trtype) + " " + traddr + ":" + trsvcid + ")";
    }

    /** TREQ bits 1:0 (nvmet's NVME_TREQ_SECURE_CHANNEL_MASK). */
    private static final int SECURE_CHANNEL_MASK = 0x3;

    public static final class Builder {
        private final int portId;
        private final String traddr;
        private final String trsvcid;
        private final int trtype;
        private int adrfam;
        // nvmet's nvmet_ports_make(): a new port offers SQ flow control disable; the secure channel is not specified
        private int treq = DiscoveryLogEntry.TREQ_NOT_SPECIFIED | DiscoveryLogEntry.TREQ_DISABLE_SQFLOW;
        private RdmaProviderType rdmaProviderType = RdmaProviderType.NOT_SPECIFIED;
        private int inlineDataSize;
        private int maxQueueSize = DEFAULT_MAX_QUEUE_SIZE;
        private int mdts = DEFAULT_MDTS;
        private int msdbd = 1;

        private Builder(int portId, int trtype, String traddr, String trsvcid, int inlineDataSize) {
            if (portId < 0 || portId > 0xFFFF) {
                throw new IllegalArgumentException("port ID " + portId + " outside 0..65535");
            }
            this.portId = portId;
            this.trtype = trtype;
            this.inlineDataSize = inlineDataSize;
            this.traddr = Objects.requireNonNull(traddr, "traddr");
            this.trsvcid = Objects.requireNonNull(trsvcid, "trsvcid");
            this.adrfam = traddr.contains(":") ? DiscoveryLogEntry.ADRFAM_IPV6 : DiscoveryLogEntry.ADRFAM_IPV4;
        }

        public Builder adrfam(int adrfam) {
            this.adrfam = adrfam;
            return this;
        }

        /**
         * The secure channel requirement (TREQ bits 1:0). Bit 2, SQ flow control disable supported, stays set: nvmet's
         * addr_treq attribute also changes only bits 1:0, and this target, like nvmet, accepts a Connect that asks
         * for flow control to be off (a host that asks ignores SQHD).
         */
        public Builder treq(int secureChannel) {
            this.treq = (this.treq & ~SECURE_CHANNEL_MASK) | (secureChannel & SECURE_CHANNEL_MASK);
            return this;
        }

        /** RDMA provider type for the discovery TSAS (the provider the port's device speaks). */
        public Builder rdmaProviderType(RdmaProviderType prtype) {
            this.rdmaProviderType = java.util.Objects.requireNonNull(prtype);
            return this;
        }

        /** In-capsule data size, 0..16 KiB in multiples of 16 (IOCCSZ is in 16-byte units). */
        public Builder inlineDataSize(int bytes) {
            if (bytes < 0 || bytes > 16384 || bytes % 16 != 0) {
                throw new IllegalArgumentException("inline data size " + bytes + " not a multiple of 16 in 0..16384");
            }
            this.inlineDataSize = bytes;
            return this;
        }

        /** Largest I/O queue in entries, 2..65536. */
        public Builder maxQueueSize(int entries) {
            if (entries < 2 || entries > 65536) {
                throw new IllegalArgumentException("queue size " + entries + " outside 2..65536");
            }
            this.maxQueueSize = entries;
            return this;
        }

        public Builder mdts(int exponent) {
            if (exponent < 0 || exponent > 15) {
                throw new IllegalArgumentException("MDTS " + exponent + " outside 0..15");
            }
            this.mdts = exponent;
            return this;
        }

        public Builder msdbd(int count) {
            this.msdbd = count;
            return this;
        }

        public Port build() {
            return new Port(this);
        }
    }
}
