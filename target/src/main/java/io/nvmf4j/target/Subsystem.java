package io.nvmf4j.target;

import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.auth.DhchapKeys;
import java.lang.System.Logger.Level;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * An NVM subsystem (nvmet's {@code struct nvmet_subsys}): NQN, the identity strings of Identify Controller (serial,
 * model, firmware revision), who may connect (allow-any-host or a list of host NQNs, nvmet_host_allowed()), its
 * namespaces by NSID, the controller ID range it allocates from (nvmet's {@code cntlid_min..cntlid_max}) and the
 * number of I/O queues a controller may have ({@code max_qid}).
 *
 * <p>An allowed host may carry DH-HMAC-CHAP keys ({@link #allowHost(String, DhchapKeys)}; nvmet's configfs
 * {@code hosts/<nqn>/dhchap_key}, {@code dhchap_ctrl_key}, {@code dhchap_hash}, {@code dhchap_dhgroup}): such a host
 * is never served without a successful authentication on every queue (NVMe Base 2.0, 8.13).
 *
 * <p>The discovery subsystem ({@link Nqn#DISCOVERY_VALUE}) is a subsystem of type {@link Type#DISCOVERY}: no
 * namespaces, no I/O queues, any host.
 *
 * <p>The host list is kept by {@link SubsystemHosts}, the namespaces by {@link NamespaceTable} and the controllers
 * by {@link SubsystemControllers}; this class announces changes and keeps the identity steady while hosts see it.
 */
public final class Subsystem {

    private static final System.Logger LOG = System.getLogger(Subsystem.class.getName());

    /** NVMe 1.3: the version this target reports in VS and Identify Controller VER. */
    public static final int NVME_VERSION_1_3 = 0x0001_0300;
    /** nvmet's default {@code NVMET_NR_QUEUES}: I/O queues per controller. */
    public static final int DEFAULT_MAX_IO_QUEUES = 128;
    /** nvmet limits a subsystem to NVMET_MAX_NAMESPACES (1024); Identify Controller NN reports it. */
    public static final int MAX_NAMESPACES = 1024;

    public enum Type { NVM, DISCOVERY }

    private final SubsystemNqn nqn;
    private final Type type;
    private volatile String serial;
    private volatile String model;
    private final String firmwareRevision;
    private final int maxIoQueues;
    private final int version;
    private final int ieeeOui;
    private final SubsystemHosts hosts;
    private final NamespaceTable namespaces = new NamespaceTable();
    private final SubsystemControllers controllers;
    /** Where namespaces keep their Persist Through Power Loss state; null: reservations do not persist. */
    private volatile java.nio.file.Path reservationDirectory;

    private Subsystem(Builder b) {
        this.nqn = b.nqn;
        this.type = b.nqn.isDiscovery() ? Type.DISCOVERY : Type.NVM;
        this.serial = b.serial != null ? b.serial : derivedSerial(b.nqn);
        this.model = b.model;
        this.firmwareRevision = b.firmwareRevision;
        this.controllers = new SubsystemControllers(b.cntlidMin, b.cntlidMax);
        this.maxIoQueues = type == Type.DISCOVERY ? 0 : b.maxIoQueues;
        this.version = b.version;
        this.ieeeOui = b.ieeeOui;
        this.hosts = new SubsystemHosts(b.allowAnyHost || type == Type.DISCOVERY, b.allowedHosts, b.hostKeys);
    }

    public static Builder builder(Nqn nqn) {
        return new Builder(SubsystemNqn.of(nqn));
    }

    /** A subsystem named as nvmet allows: any {@link SubsystemNqn}, not only a standard NQN. */
    public static Builder builder(SubsystemNqn nqn) {
        return new Builder(nqn);
    }

    /** The well-known discovery subsystem. */
    public static Subsystem discovery() {
        return builder(Nqn.DISCOVERY).model("nvmf4j discovery").build();
    }

    /**
     * The serial when none is configured: nvmet makes a random one (nvmet_subsys_alloc()), which changes at every
     * restart, and a host then takes the same subsystem for a new one (Linux nvme_init_subsystem() matches
     * controllers to a subsystem by NQN but udev rules and multipath use the serial). Ours is 16 hex digits of
     * SHA-256 of the NQN: stable across restarts, distinct per subsystem.
     */
    public static String derivedSerial(SubsystemNqn nqn) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(nqn.value().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(digest, 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    public SubsystemNqn nqn() {
        return nqn;
    }

    public Type type() {
        return type;
    }

    public boolean isDiscovery() {
        return type == Type.DISCOVERY;
    }

    public String serial() {
        return serial;
    }

    public String model() {
        return model;
    }

    /**
     * Changes the serial of a running subsystem. nvmet refuses once a host has seen it
     * (nvmet_subsys_attr_serial_store() returns -EBUSY after subsys_discovered): a host that has identified the
     * controller would see the identity change under it. So do we, while any controller is connected.
     */
    public synchronized void serial(String value) {
        String checked = Builder.requireAscii("serial", value, 20);
        requireNoControllers("serial");
        serial = checked;
    }

    /** Changes the model number of a running subsystem; refused while controllers are connected, as the serial. */
    public synchronized void model(String value) {
        String checked = Builder.requireAscii("model", value, 40);
        requireNoControllers("model");
        model = checked;
    }

    private void requireNoControllers(String what) {
        if (!controllers.isEmpty()) {
            throw new IllegalStateException(nqn + " has " + controllers.size()
                    + " connected controller(s); the " + what + " cannot change while hosts see it");
        }
    }

    public String firmwareRevision() {
        return firmwareRevision;
    }

    /** The NVMe version reported in VS and Identify Controller VER (nvmet attr_version), 1.3 by default. */
    public int version() {
        return version;
    }

    /** IEEE OUI of Identify Controller (nvmet attr_ieee_oui), 0 by default. */
    public int ieeeOui() {
        return ieeeOui;
    }

    /** Highest I/O queue ID a controller of this subsystem may create ({@code max_qid}). */
    public int maxIoQueues() {
        return maxIoQueues;
    }

    // ---- hosts (SubsystemHosts) ----

    public boolean allowsAnyHost() {
        return hosts.allowsAnyHost();
    }

    public Set<String> allowedHosts() {
        return hosts.allowedHosts();
    }

    /** nvmet_host_allowed(): allow-any-host, the discovery subsystem, or a host NQN on the list. */
    public boolean hostAllowed(String hostNqn) {
        return isDiscovery() || hosts.hostAllowed(hostNqn);
    }

    public void allowAnyHost(boolean allow) {
        hosts.allowAnyHost(allow);
    }

    public void allowHost(String hostNqn) {
        hosts.allowHost(hostNqn);
    }

    /**
     * Allows {@code hostNqn} with DH-HMAC-CHAP keys (authentication on every queue, NVMe Base 2.0, 8.13); null keys:
     * without authentication. Controllers already connected keep the keys they authenticated with.
     */
    public void allowHost(String hostNqn, DhchapKeys keys) {
        hosts.allowHost(hostNqn, keys);
    }

    /** The DH-HMAC-CHAP keys of an allowed host, empty when it connects without authentication. */
    public java.util.Optional<DhchapKeys> hostKeys(String hostNqn) {
        return hosts.hostKeys(hostNqn);
    }

    public void disallowHost(String hostNqn) {
        hosts.disallowHost(hostNqn);
    }

    void onHostListChange(Runnable action) {
        hosts.onHostListChange(action);
    }

    // ---- namespaces ----

    /** Adds an enabled namespace and announces it to the connected controllers. */
    public void addNamespace(SubsystemNamespace ns) {
        if (isDiscovery()) {
            throw new IllegalStateException("the discovery subsystem has no namespaces");
        }
        if (namespaces.size() >= MAX_NAMESPACES) {
            throw new IllegalStateException(nqn + " already has " + MAX_NAMESPACES + " namespaces");
        }
        java.nio.file.Path dir = reservationDirectory;
        if (dir != null && !namespaces.contains(ns.nsid())) {
            try {
                ns.reservation().persistIn(dir.resolve(reservationFileName(ns.nsid())));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(nqn + " namespace " + ns.nsid() + ": " + e.getMessage(), e);
            }
        }
        if (namespaces.putIfAbsent(ns) != null) {
            throw new IllegalArgumentException(nqn + " already has namespace " + ns.nsid());
        }
        LOG.log(Level.INFO, "{0}: added {1}", nqn, ns);
        namespaceChanged(ns.nsid());
    }

    /** Removes a namespace (the caller closes its backend) and announces the change. */
    public SubsystemNamespace removeNamespace(long nsid) {
        SubsystemNamespace ns = namespaces.remove(nsid);
        if (ns != null) {
            LOG.log(Level.INFO, "{0}: removed {1}", nqn, ns);
            namespaceChanged(nsid);
        }
        return ns;
    }

    /**
     * Swaps a namespace for one with the same NSID (a resized backend) and announces it once: nvmet_ns_revalidate()
     * followed by nvmet_ns_changed(), so hosts re-read Identify Namespace and see the new size. Returns the old one
     * (the caller closes its backend).
     */
    public SubsystemNamespace replaceNamespace(SubsystemNamespace ns) {
        SubsystemNamespace old = namespaces.replace(ns);
        if (old == null) {
            throw new IllegalArgumentException(nqn + " has no namespace " + ns.nsid());
        }
        ns.enabled(old.isEnabled());
        ns.reservation = old.reservation; // same namespace, new size: registrations stay
        ns.anaGroupId = old.anaGroupId;
        namespaces.republish();
        LOG.log(Level.INFO, "{0}: {1} now {2} bytes", nqn, ns, ns.backend().sizeInBytes());
        namespaceChanged(ns.nsid());
        return old;
    }

    /** Enables or disables a namespace (nvmet_ns_enable()/nvmet_ns_disable()) and announces the change. */
    public void enableNamespace(long nsid, boolean enable) {
        SubsystemNamespace ns = namespaces.get(nsid);
        if (ns == null) {
            throw new IllegalArgumentException(nqn + " has no namespace " + nsid);
        }
        if (ns.isEnabled() != enable) {
            ns.enabled(enable);
            namespaceChanged(nsid);
        }
    }

    /**
     * Lets this subsystem's namespaces persist reservations through power loss (RESCAP bit 0) in files under
     * {@code dir}, and takes the state each namespace's file holds (a restart of the target): SPDK's
     * {@code ptpl_file} per namespace, named here after the subsystem and the NSID.
     */
    public void persistReservationsIn(java.nio.file.Path dir) throws java.io.IOException {
        reservationDirectory = dir;
        for (SubsystemNamespace ns : namespaces.all()) {
            ns.reservation().persistIn(dir.resolve(reservationFileName(ns.nsid())));
        }
    }

    /** {@code <NQN with other characters than [A-Za-z0-9.-] as _>-<8 hex of SHA-256 of the NQN>.ns<NSID>.resv}. */
    String reservationFileName(long nsid) {
        return nqn.value().replaceAll("[^A-Za-z0-9.-]", "_") + "-" + derivedSerial(nqn).substring(0, 8) + ".ns"
                + nsid + ".resv";
    }

    /** The enabled namespace {@code nsid}, or null (nvmet_find_namespace()); no lock, no boxing. */
    public SubsystemNamespace activeNamespace(long nsid) {
        return namespaces.active(nsid);
    }

    /** Whether {@code nsid} is configured at all, enabled or not. */
    public boolean hasNamespace(long nsid) {
        return namespaces.contains(nsid);
    }

    /** Enabled namespaces in NSID order. */
    public List<SubsystemNamespace> activeNamespaces() {
        return namespaces.active();
    }

    /** All namespaces, enabled or not, in NSID order. */
    public Collection<SubsystemNamespace> namespaces() {
        return List.copyOf(namespaces.all());
    }

    /** nvmet_ns_changed(): every controller logs the NSID and, if enabled and unmasked, raises an event. */
    void namespaceChanged(long nsid) {
        for (Controller c : controllers.live()) {
            c.namespaceChanged(nsid);
        }
    }

    // ---- controllers ----

    /**
     * Allocates the lowest free controller ID in {@code cntlid_min..cntlid_max} and registers the controller the
     * factory makes for it; -1 when the range is exhausted (nvmet: ida_alloc_range() fails, Connect returns
     * Controller Busy).
     */
    synchronized Controller registerController(java.util.function.IntFunction<Controller> factory) {
        return registerController(factory, null, null, null, null);
    }

    /**
     * Registers a controller for {@code hostNqn} whose admin queue comes from {@code peer} unless that host NQN or
     * that address already holds its {@code share} of this subsystem's live controllers; the check and the
     * registration are one step. When refused for the share, {@code refusal} gets the reason and null is returned;
     * null with no reason: no free controller ID.
     */
    synchronized Controller registerController(java.util.function.IntFunction<Controller> factory, String hostNqn,
            String peer, ControllerShare share, String[] refusal) {
        return controllers.register(factory, hostNqn, peer, share, refusal);
    }

    synchronized void unregisterController(Controller controller) {
        controllers.unregister(controller);
    }

    public Controller controller(int cntlid) {
        return controllers.get(cntlid);
    }

    public Collection<Controller> controllers() {
        return controllers.all();
    }

    @Override
    public String toString() {
        return "subsystem " + nqn;
    }

    public static final class Builder {
        private final SubsystemNqn nqn;
        private String serial;
        private String model = "nvmf4j";
        private String firmwareRevision = "0.1.0";
        private boolean allowAnyHost;
        private final Set<String> allowedHosts = new CopyOnWriteArraySet<>();
        private final Map<String, DhchapKeys> hostKeys = new ConcurrentHashMap<>();
        private int cntlidMin = ControllerId.MIN;
        private int cntlidMax = ControllerId.MAX;
        private int maxIoQueues = DEFAULT_MAX_IO_QUEUES;
        private int version = NVME_VERSION_1_3;
        private int ieeeOui;

        private Builder(SubsystemNqn nqn) {
            this.nqn = Objects.requireNonNull(nqn, "nqn");
        }

        /** Serial number, printable ASCII, at most 20 characters (Identify Controller SN). */
        public Builder serial(String serial) {
            this.serial = requireAscii("serial", serial, 20);
            return this;
        }

        /** Model number, printable ASCII, at most 40 characters (Identify Controller MN). */
        public Builder model(String model) {
            this.model = requireAscii("model", model, 40);
            return this;
        }

        /** Firmware revision, printable ASCII, at most 8 characters (Identify Controller FR). */
        public Builder firmwareRevision(String revision) {
            this.firmwareRevision = requireAscii("firmware revision", revision, 8);
            return this;
        }

        public Builder allowAnyHost(boolean allow) {
            this.allowAnyHost = allow;
            return this;
        }

        public Builder allowHost(String hostNqn) {
            allowedHosts.add(Objects.requireNonNull(hostNqn));
            return this;
        }

        /** Allows {@code hostNqn} with DH-HMAC-CHAP keys (see {@link Subsystem#allowHost(String, DhchapKeys)}). */
        public Builder allowHost(String hostNqn, DhchapKeys keys) {
            allowHost(hostNqn);
            if (keys != null) {
                hostKeys.put(hostNqn, keys);
            }
            return this;
        }

        /** Controller ID range (nvmet attr_cntlid_min/max), within 1..FFEFh. */
        public Builder controllerIdRange(int min, int max) {
            if (min < ControllerId.MIN || max > ControllerId.MAX || min > max) {
                throw new IllegalArgumentException("controller ID range " + min + ".." + max + " not within 1..65519");
            }
            this.cntlidMin = min;
            this.cntlidMax = max;
            return this;
        }

        /** I/O queues per controller, 1..65534 (nvmet attr_qid_max). */
        public Builder maxIoQueues(int count) {
            if (count < 1 || count > 0xFFFE) {
                throw new IllegalArgumentException("I/O queue count " + count + " outside 1..65534");
            }
            this.maxIoQueues = count;
            return this;
        }

        /** VS/VER as {@code major << 16 | minor << 8 | tertiary}; at least 1.3, the features we implement. */
        public Builder version(int vs) {
            if (vs < NVME_VERSION_1_3 || vs > 0xFFFF_FF) {
                throw new IllegalArgumentException(String.format("NVMe version %06xh not 1.3 or later", vs));
            }
            this.version = vs;
            return this;
        }

        public Builder ieeeOui(int oui) {
            if (oui < 0 || oui > 0xFF_FFFF) {
                throw new IllegalArgumentException("IEEE OUI " + oui + " is not 24 bits");
            }
            this.ieeeOui = oui;
            return this;
        }

        public Subsystem build() {
            return new Subsystem(this);
        }

        private static String requireAscii(String what, String value, int max) {
            Objects.requireNonNull(value, what);
            if (value.length() > max || !value.chars().allMatch(c -> c >= 0x20 && c <= 0x7E)) {
                throw new IllegalArgumentException(what + " \"" + value + "\" must be printable ASCII of at most "
                        + max + " characters");
            }
            return value;
        }
    }
}
