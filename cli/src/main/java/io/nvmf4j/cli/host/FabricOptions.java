package io.nvmf4j.cli.host;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.protocol.Nqn;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.UUID;
import picocli.CommandLine.Option;

/**
 * The connect options every host command shares, with nvme-cli's letters and names ({@code nvme connect} /
 * {@code nvme discover}, {@code fabrics.c}), turned into one {@link ConnectOptions} in a straight line: each flag
 * becomes exactly one builder call, nothing is re-parsed on the way.
 *
 * <p>{@code -t/--transport} and {@code -q/--hostnqn} are declared by the subclasses: {@link ConnectFlags} gives
 * them nvme-cli's letters; {@code perf} keeps {@code -q} and {@code -t} for depth and time (as SPDK perf and fio
 * do) and offers only the long names.
 */
public abstract class FabricOptions {

    /** {@code --transport}. */
    protected abstract String transport();

    /** {@code --hostnqn}, or null. */
    protected abstract String hostnqn();


    /** The NVMe-oF port IANA assigned to NVMe over RDMA (and nvme-cli's default trsvcid). */
    public static final int DEFAULT_TRSVCID = 4420;

    @Option(names = {"-a", "--traddr"}, defaultValue = "127.0.0.1", paramLabel = "TRADDR",
            description = "Transport address of the target (default: ${DEFAULT-VALUE}).")
    String traddr = "127.0.0.1";

    @Option(names = {"-s", "--trsvcid"}, defaultValue = "4420", paramLabel = "TRSVCID",
            description = "Transport service id: the port (default: ${DEFAULT-VALUE}).")
    int trsvcid = DEFAULT_TRSVCID;

    @Option(names = {"-n", "--nqn"}, paramLabel = "SUBNQN",
            description = "Subsystem NQN (default: the first NVM subsystem the discovery log lists).")
    String nqn;

    @Option(names = {"-I", "--hostid"}, paramLabel = "HOSTID",
            description = "Host ID, a UUID (default: /etc/nvme/hostid, else from the host NQN).")
    String hostid;

    @Option(names = {"-i", "--nr-io-queues"}, paramLabel = "N", description = "Number of I/O queues to ask for.")
    Integer nrIoQueues;

    @Option(names = {"-Q", "--queue-size"}, paramLabel = "N",
            description = "Entries per I/O queue, 16..1024 (default: 128).")
    Integer queueSize;

    @Option(names = {"-k", "--keep-alive-tmo"}, paramLabel = "SECONDS",
            description = "Keep-alive timeout sent in Connect; 0 disables keep-alive (default: 5).")
    Integer keepAliveTmo;

    @Option(names = {"-l", "--ctrl-loss-tmo"}, paramLabel = "SECONDS",
            description = "How long to keep reconnecting after the connection is lost (default: 600).")
    Integer ctrlLossTmo;

    @Option(names = {"-c", "--reconnect-delay"}, paramLabel = "SECONDS",
            description = "Pause between reconnect attempts (default: 10).")
    Integer reconnectDelay;

    @Option(names = "--provider", defaultValue = "auto", paramLabel = "NAME",
            description = "RDMA provider: softiwarp, ibverbs or auto (default: ${DEFAULT-VALUE}).")
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
        return (traddr.indexOf(':') >= 0 ? "[" + traddr + "]" : traddr) + ":" + trsvcid;
    }

    public InetSocketAddress address() {
        if (!"rdma".equals(transport())) {
            throw new UsageProblem("transport '" + transport() + "' is not supported: nvmf4j speaks NVMe over RDMA "
                    + "(-t rdma)");
        }
        if (trsvcid < 1 || trsvcid > 65535) {
            throw new UsageProblem("trsvcid " + trsvcid + " is not a port number");
        }
        return new InetSocketAddress(traddr, trsvcid);
    }

    /** The subsystem NQN given with -n, or null. */
    public Nqn subsystemNqn() {
        return nqn == null ? null : parseNqn("--nqn", nqn);
    }

    /** Host identity from -q/-I, falling back to /etc/nvme like nvme-cli. */
    public HostIdentity hostIdentity() {
        String hostnqn = hostnqn();
        HostIdentity system = hostnqn == null || hostid == null ? HostIdentity.fromSystem() : null;
        Nqn host = hostnqn != null ? parseNqn("--hostnqn", hostnqn) : system.hostNqn();
        UUID id;
        if (hostid != null) {
            try {
                id = UUID.fromString(hostid);
            } catch (IllegalArgumentException e) {
                throw new UsageProblem("--hostid '" + hostid + "' is not a UUID");
            }
        } else if (hostnqn != null) {
            id = HostIdentity.of(host).hostId();
        } else {
            id = system.hostId();
        }
        return new HostIdentity(host, id);
    }

    /** Options for {@code subsystem}; {@code ioQueuesDefault} applies when -i was not given. */
    public ConnectOptions.Builder builder(Nqn subsystem) {
        ConnectOptions.Builder b = ConnectOptions.builder(address(), subsystem).host(hostIdentity())
                .connectTimeout(Duration.ofSeconds(Math.max(1, connectTimeout)));
        if (!"auto".equals(provider)) {
            b.provider(provider);
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
        return b;
    }

    /** Options for the discovery controller at the same address (no I/O queues, no keep-alive: nvme discover). */
    public ConnectOptions discoveryOptions() {
        return builder(Nqn.DISCOVERY).ioQueues(0).keepAliveTimeout(Duration.ZERO).build();
    }

    private static Nqn parseNqn(String option, String text) {
        try {
            return Nqn.parse(text);
        } catch (RuntimeException e) {
            throw new UsageProblem(option + " '" + text + "' is not an NQN: " + e.getMessage());
        }
    }
}
