package io.nvmf4j.cli.host;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.protocol.Nqn;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import picocli.CommandLine.Option;

/**
 * The connect options every host command shares, with nvme-cli's letters and names ({@code nvme connect} /
 * {@code nvme discover}, {@code fabrics.c}), turned into one {@link ConnectOptions} in a straight line: each flag
 * becomes exactly one builder call, nothing is re-parsed on the way.
 *
 * <p>The options are declared by the subclasses, as annotated setters of the fields here: {@link ConnectFlags}
 * gives them nvme-cli's letters ({@code nvme connect}, {@code nvme discover}); {@link LongConnectFlags} offers the
 * long names only, for the commands whose own options use those letters (nvme-cli's device commands, SPDK's perf).
 * picocli takes an option's names from a constant annotation, so the two spellings need two declarations; the
 * values and all that reads them (address, identity, DH-HMAC-CHAP secrets, the builder) live here once.
 */
public abstract class FabricOptions {

    // The options nvme-cli's connect letters name are declared by the subclasses: ConnectFlags with the letters
    // (nvme connect, nvme discover), LongConnectFlags with the long names only (device commands and perf, whose
    // own options use those letters). Descriptions shared by both:
    static final String D_TRADDR = "Transport address of the target (default: ${DEFAULT-VALUE}).";
    static final String D_TRSVCID = "Transport service id: the port (default: ${DEFAULT-VALUE}).";
    static final String D_NQN = "Subsystem NQN (default: the first NVM subsystem the discovery log lists).";
    static final String D_TRANSPORT = "Transport type: rdma or tcp (default: ${DEFAULT-VALUE}).";
    static final String D_HDR_DIGEST = "NVMe/TCP: ask for a header digest (CRC32C) on every PDU.";
    static final String D_DATA_DIGEST = "NVMe/TCP: ask for a data digest (CRC32C) on every PDU with data.";
    static final String D_DISABLE_SQFLOW = "Ask in every Connect that SQ flow control be off (TP 8005): over "
            + "NVMe/TCP a read may then end with its data alone.";
    static final String D_HOSTNQN = "Host NQN (default: /etc/nvme/hostnqn, else the uuid NQN of the host ID; "
            + "see show-hostnqn).";
    static final String D_HOSTID = "Host ID, a UUID (default: /etc/nvme/hostid, else from the host NQN, else the "
            + "DMI system UUID, else random).";
    static final String D_NR_IO_QUEUES = "Number of I/O queues to ask for.";
    static final String D_QUEUE_SIZE = "Entries per I/O queue, 16..1024 (default: 128).";
    static final String D_KATO = "Keep-alive timeout sent in Connect; 0 disables keep-alive (default: 5).";
    static final String D_CTRL_LOSS = "How long to keep reconnecting after the connection is lost (default: 600).";
    static final String D_RECONNECT = "Pause between reconnect attempts (default: 10).";
    static final String D_DHCHAP_SECRET = "DH-HMAC-CHAP host secret (DHHC-1:hh:...:, see gen-dhchap-key) or the "
            + "path of a file holding it: every queue authenticates when the controller asks.";
    static final String D_DHCHAP_CTRL_SECRET = "DH-HMAC-CHAP controller secret: the controller must prove it "
            + "(bidirectional authentication, on every queue); needs --dhchap-secret.";

    // The values of the connect options, filled by the subclass's annotated setters (picocli calls each with the
    // value given or the option's default); everything below reads them here, so the secret and ctrl-secret checks,
    // the address parsing and the builder exist once for both spellings of the options.
    String traddr = "127.0.0.1";
    int trsvcid = DEFAULT_TRSVCID;
    String nqn;
    String transport = "rdma";
    String hostnqn;
    String hostid;
    Integer nrIoQueues;
    Integer queueSize;
    Integer keepAliveTmo;
    Integer ctrlLossTmo;
    Integer reconnectDelay;
    String dhchapSecret;
    String dhchapCtrlSecret;
    boolean hdrDigest;
    boolean dataDigest;
    boolean disableSqFlow;

    /** The NVMe-oF port IANA assigned to NVMe over RDMA (and nvme-cli's default trsvcid). */
    public static final int DEFAULT_TRSVCID = 4420;

    @Option(names = "--provider", defaultValue = "auto", paramLabel = "NAME",
            description = "RDMA provider: softiwarp, ibverbs or auto (default: ${DEFAULT-VALUE}); not used with -t tcp.")
    String provider = "auto";

    @Option(names = "--connect-timeout", defaultValue = "5", paramLabel = "SECONDS",
            description = "Bound on connecting to an absent or silent target (default: ${DEFAULT-VALUE}).")
    int connectTimeout = 5;

    /** -i as given, or null (callers with their own default ask). */
    public Integer nrIoQueuesGiven() {
        return nrIoQueues;
    }

    /** -Q as given, or null. */
    public Integer queueSizeGiven() {
        return queueSize;
    }

    /** traddr:trsvcid as the user wrote them (for messages: no resolver output, no leading slash). */
    public String endpoint() {
        if (traddr.indexOf(',') >= 0 || traddr.contains("]:") || hasOnePort(traddr)) {
            return traddr; // a path list or an address with its port (see pathAddresses), as given
        }
        return (traddr.indexOf(':') >= 0 ? "[" + traddr + "]" : traddr) + ":" + trsvcid;
    }

    /** ADDR:PORT with exactly one colon: an IPv4 address or a name with its port (an IPv6 address has more). */
    private static boolean hasOnePort(String entry) {
        int colon = entry.indexOf(':');
        return colon > 0 && colon == entry.lastIndexOf(':');
    }

    public InetSocketAddress address() {
        if (!ConnectOptions.TRANSPORT_RDMA.equals(transport) && !ConnectOptions.TRANSPORT_TCP.equals(transport)) {
            throw new UsageProblem("transport '" + transport + "' is not supported: nvmf4j speaks NVMe over RDMA "
                    + "and TCP (-t rdma, -t tcp)");
        }
        // one address, ADDR:PORT, or a path list (discovery and single-path uses take the first)
        return pathAddresses().getFirst();
    }

    /**
     * A host name is resolved as libnvme does for nvme-cli (the kernel's RDMA CM takes addresses only); one that does
     * not resolve is said so, where the socket layer would throw a bare UnresolvedAddressException at connect.
     */
    private static InetSocketAddress resolved(String host, int port) {
        InetSocketAddress a = new InetSocketAddress(host, port);
        if (a.isUnresolved()) {
            throw new CommandFailure("failed to resolve host " + host + ": traddr must be the target's IP address"
                    + " or a name that resolves to one");
        }
        return a;
    }

    /**
     * The paths named by the address option: one address, or a comma-separated list for multipath (nvme-cli has no
     * such list: there one runs {@code nvme connect} once per path and the kernel joins them; perf and mount take
     * the paths in one go). Each entry is an address on the service id option, or {@code ADDR:PORT} /
     * {@code [IPv6]:PORT} with its own port, e.g. {@code --traddr 127.0.0.1:4420,127.0.0.1:4421}.
     */
    public java.util.List<InetSocketAddress> pathAddresses() {
        java.util.List<InetSocketAddress> out = new java.util.ArrayList<>();
        for (String entry : traddr.split(",")) {
            String e = entry.strip();
            if (e.isEmpty()) {
                throw new UsageProblem("empty address in the path list '" + traddr + "'");
            }
            String host = e;
            int port = trsvcid;
            int close = e.lastIndexOf(']');
            int colon = e.lastIndexOf(':');
            if (e.startsWith("[") && close > 0) {
                host = e.substring(1, close);
                if (close + 1 < e.length()) {
                    port = parsePort(e, e.substring(close + 2));
                }
            } else if (hasOnePort(e)) {
                host = e.substring(0, colon);
                port = parsePort(e, e.substring(colon + 1));
            }
            if (port < 1 || port > 65535) {
                throw new UsageProblem("trsvcid " + port + " is not a port number");
            }
            out.add(resolved(host, port));
        }
        return out;
    }

    private static int parsePort(String entry, String port) {
        try {
            return Integer.parseInt(port);
        } catch (NumberFormatException ex) {
            throw new UsageProblem("'" + entry + "': the port after ':' is not a number");
        }
    }

    /** The subsystem NQN given with -n/--nqn, or null. */
    public Nqn subsystemNqn() {
        return nqn == null ? null : parseNqn("--nqn", nqn);
    }

    /** Where the host identity is looked up beside -q/-I: this machine's, unless a test names other files. */
    HostIdentity.Sources identitySources = HostIdentity.Sources.system();
    /** The identity once found: a command that connects twice (discovery, then the subsystem) is one host. */
    private HostIdentity identity;

    /**
     * Host identity from -q/-I, else found as libnvme finds it ({@link HostIdentity#resolve}); a made-up identity is
     * reported on stderr once, as nvme-cli reports it.
     */
    public HostIdentity hostIdentity() {
        return hostIdentity(System.err);
    }

    HostIdentity hostIdentity(java.io.PrintStream notices) {
        if (identity != null) {
            return identity;
        }
        Nqn host = hostnqn != null ? parseNqn("--hostnqn", hostnqn) : null;
        UUID id = null;
        if (hostid != null) {
            try {
                id = UUID.fromString(hostid);
            } catch (IllegalArgumentException e) {
                throw new UsageProblem("--hostid '" + hostid + "' is not a UUID");
            }
        }
        HostIdentity.Resolved resolved;
        try {
            resolved = HostIdentity.resolve(identitySources, host, id);
        } catch (IllegalStateException e) {
            throw new CommandFailure("no host identity: " + e.getMessage(), e);
        }
        if (resolved.notice() != null) {
            notices.println("nvmf4j: " + resolved.notice());
        }
        identity = resolved.identity();
        return identity;
    }

    /** Options for {@code subsystem}; each connect option given becomes one builder call. */
    public ConnectOptions.Builder builder(Nqn subsystem) {
        ConnectOptions.Builder b = ConnectOptions.builder(address(), subsystem).host(hostIdentity())
                .connectTimeout(Duration.ofSeconds(Math.max(1, connectTimeout))).transport(transport)
                .headerDigest(hdrDigest).dataDigest(dataDigest).disableSqFlow(disableSqFlow);
        // over TCP no RDMA device is opened: --provider is not used, and the uverbs probe is spared
        String chosen = ConnectOptions.TRANSPORT_TCP.equals(transport) ? null : provider(provider, UVERBS_SYSFS);
        if (chosen != null) {
            b.provider(chosen);
        }
        if (nrIoQueues != null) {
            b.ioQueues(nrIoQueues);
        }
        if (queueSize != null) {
            b.queueSize(queueSize);
        }
        if (keepAliveTmo != null) {
            b.keepAliveTimeout(Duration.ofSeconds(keepAliveTmo));
        }
        if (ctrlLossTmo != null) {
            b.ctrlLossTimeout(Duration.ofSeconds(ctrlLossTmo));
        }
        if (reconnectDelay != null) {
            b.reconnectDelay(Duration.ofSeconds(reconnectDelay));
        }
        if (dhchapCtrlSecret != null && dhchapSecret == null) {
            throw new UsageProblem("--dhchap-ctrl-secret requires --dhchap-secret");
        }
        b.dhchapSecret(DhchapSecretOption.parse("--dhchap-secret", dhchapSecret, System.err));
        b.dhchapCtrlSecret(DhchapSecretOption.parse("--dhchap-ctrl-secret", dhchapCtrlSecret, System.err));
        return b;
    }

    /**
     * Options for the discovery controller at the same address (no I/O queues, no keep-alive: nvme discover). The
     * host secret goes along (used when the discovery controller asks for authentication); the controller secret
     * does not: it is meant for the NVM subsystem, and a discovery controller without keys would fail the
     * bidirectional authentication it forces.
     */
    public ConnectOptions discoveryOptions() {
        return builder(Nqn.DISCOVERY).ioQueues(0).keepAliveTimeout(Duration.ZERO).dhchapCtrlSecret(null).build();
    }

    /** Where the kernel lists the RDMA devices user space can open (one uverbsN entry per device). */
    static final Path UVERBS_SYSFS = Path.of("/sys/class/infiniband_verbs");

    /**
     * The provider to ask the library for: the one named, or for "auto" null (the library's choice) - except when
     * the kernel offers no RDMA device to user space at all. libibverbs finds its devices in
     * /sys/class/infiniband_verbs (rdma-core {@code find_sysfs_devs()}), so without a uverbsN entry there the
     * ibverbs provider is unavailable and "auto" would end on softiwarp anyway; naming it spares a command the
     * library's probe (loading libibverbs and librdmacm, 50-100 ms of a 0.3 s command; issue 16).
     */
    static String provider(String option, Path uverbsSysfs) {
        if (!"auto".equals(option)) {
            return option;
        }
        try (java.util.stream.Stream<Path> entries = java.nio.file.Files.list(uverbsSysfs)) {
            return entries.anyMatch(p -> p.getFileName().toString().startsWith("uverbs")) ? null : "softiwarp";
        } catch (java.io.IOException | RuntimeException e) {
            return "softiwarp";   // no such directory: no device
        }
    }

    /**
     * Any name nvme-cli would pass to the kernel: a subsystem of Linux nvmet may be called {@code testnqn}, so only
     * what cannot travel in the 256-byte NQN field is refused.
     */
    private static Nqn parseNqn(String option, String text) {
        try {
            return Nqn.parse(text);
        } catch (RuntimeException e) {
            String m = e.getMessage();
            int reason = m.indexOf("\": ");
            throw new UsageProblem(option + " '" + text + "' is not a usable NQN: "
                    + (reason >= 0 ? m.substring(reason + 3) : m));
        }
    }
}
