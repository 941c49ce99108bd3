package io.nvmf4j.cli.host;

import java.util.Set;
import picocli.CommandLine.Option;

/**
 * The connect options with their long names only. nvme-cli's device commands use the letters of
 * {@code nvme connect} for their own options ({@code nvme read -s} is the start block, {@code -c} the 0's based
 * block count, {@code -n} the namespace id, {@code -a} the application tag, {@code -l} limited retry, {@code -t}
 * latency; {@code get-log -i} the log id), and SPDK's perf uses {@code -a}, {@code -c}, {@code -s}, {@code -i},
 * {@code -k}, {@code -l}, {@code -q}, {@code -t}, {@code -Q} for its own. Such a command follows nvme-cli (or SPDK)
 * for its own options; the connect options stay reachable as {@code --traddr}, {@code --trsvcid}, {@code --nqn} ...
 * (issue 16). {@link #CONNECT_OPTIONS} lists them for help texts and tests.
 */
public final class LongConnectFlags extends FabricOptions {

    /** The long names of every connect option. */
    public static final Set<String> CONNECT_OPTIONS = Set.of("--traddr", "--trsvcid", "--nqn", "--transport",
            "--hostnqn", "--hostid", "--nr-io-queues", "--queue-size", "--keep-alive-tmo", "--ctrl-loss-tmo",
            "--reconnect-delay", "--dhchap-secret", "--dhchap-ctrl-secret");

    @Option(names = "--traddr", defaultValue = "127.0.0.1", paramLabel = "TRADDR", description = D_TRADDR)
    String traddr = "127.0.0.1";

    @Option(names = "--trsvcid", defaultValue = "4420", paramLabel = "TRSVCID", description = D_TRSVCID)
    int trsvcid = 4420;

    @Option(names = "--nqn", paramLabel = "SUBNQN", description = D_NQN)
    String nqn;

    @Option(names = "--transport", defaultValue = "rdma", paramLabel = "TRTYPE", description = D_TRANSPORT)
    String transport = "rdma";

    @Option(names = "--hostnqn", paramLabel = "HOSTNQN", description = D_HOSTNQN)
    String hostnqn;

    @Option(names = "--hostid", paramLabel = "HOSTID", description = D_HOSTID)
    String hostid;

    @Option(names = "--nr-io-queues", paramLabel = "N", description = D_NR_IO_QUEUES)
    Integer nrIoQueues;

    @Option(names = "--queue-size", paramLabel = "N", description = D_QUEUE_SIZE)
    Integer queueSize;

    @Option(names = "--keep-alive-tmo", paramLabel = "SECONDS", description = D_KATO)
    Integer keepAliveTmo;

    @Option(names = "--ctrl-loss-tmo", paramLabel = "SECONDS", description = D_CTRL_LOSS)
    Integer ctrlLossTmo;

    @Option(names = "--reconnect-delay", paramLabel = "SECONDS", description = D_RECONNECT)
    Integer reconnectDelay;

    @Option(names = "--dhchap-secret", paramLabel = "SECRET", description = D_DHCHAP_SECRET)
    String dhchapSecret;

    @Option(names = "--dhchap-ctrl-secret", paramLabel = "SECRET", description = D_DHCHAP_CTRL_SECRET)
    String dhchapCtrlSecret;

    @Override
    protected String dhchapSecret() {
        return dhchapSecret;
    }

    @Override
    protected String dhchapCtrlSecret() {
        return dhchapCtrlSecret;
    }

    @Override
    protected String traddr() {
        return traddr;
    }

    @Override
    protected int trsvcid() {
        return trsvcid;
    }

    @Override
    protected String nqn() {
        return nqn;
    }

    @Override
    protected String transport() {
        return transport;
    }

    @Override
    protected String hostnqn() {
        return hostnqn;
    }

    @Override
    protected String hostid() {
        return hostid;
    }

    @Override
    protected Integer nrIoQueues() {
        return nrIoQueues;
    }

    @Override
    protected Integer queueSize() {
        return queueSize;
    }

    @Override
    protected Integer keepAliveTmo() {
        return keepAliveTmo;
    }

    @Override
    protected Integer ctrlLossTmo() {
        return ctrlLossTmo;
    }

    @Override
    protected Integer reconnectDelay() {
        return reconnectDelay;
    }

    /**
     * Takes the address, port and NQNs of an SPDK transport ID ({@code perf -r}); a value the ID leaves out keeps
     * its option's. The ID wins over {@code --traddr} and the others when both are given.
     */
    public void useTransportId(String traddr, Integer trsvcid, String subnqn, String hostnqn) {
        if (traddr != null) {
            this.traddr = traddr;
        }
        if (trsvcid != null) {
            this.trsvcid = trsvcid;
        }
        if (subnqn != null) {
            this.nqn = subnqn;
        }
        if (hostnqn != null) {
            this.hostnqn = hostnqn;
        }
    }
}
