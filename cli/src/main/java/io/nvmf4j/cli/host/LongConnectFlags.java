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
            "--reconnect-delay", "--dhchap-secret", "--dhchap-ctrl-secret", "--hdr-digest", "--data-digest",
            "--disable-sqflow");

    @Option(names = "--traddr", defaultValue = "127.0.0.1", paramLabel = "TRADDR", description = D_TRADDR)
    void traddr(String value) {
        this.traddr = value;
    }

    @Option(names = "--trsvcid", defaultValue = "4420", paramLabel = "TRSVCID", description = D_TRSVCID)
    void trsvcid(int value) {
        this.trsvcid = value;
    }

    @Option(names = "--nqn", paramLabel = "SUBNQN", description = D_NQN)
    void nqn(String value) {
        this.nqn = value;
    }

    @Option(names = "--transport", defaultValue = "rdma", paramLabel = "TRTYPE", description = D_TRANSPORT)
    void transport(String value) {
        this.transport = value;
    }

    @Option(names = "--hostnqn", paramLabel = "HOSTNQN", description = D_HOSTNQN)
    void hostnqn(String value) {
        this.hostnqn = value;
    }

    @Option(names = "--hostid", paramLabel = "HOSTID", description = D_HOSTID)
    void hostid(String value) {
        this.hostid = value;
    }

    @Option(names = "--nr-io-queues", paramLabel = "N", description = D_NR_IO_QUEUES)
    void nrIoQueues(Integer value) {
        this.nrIoQueues = value;
    }

    @Option(names = "--queue-size", paramLabel = "N", description = D_QUEUE_SIZE)
    void queueSize(Integer value) {
        this.queueSize = value;
    }

    @Option(names = "--keep-alive-tmo", paramLabel = "SECONDS", description = D_KATO)
    void keepAliveTmo(Integer value) {
        this.keepAliveTmo = value;
    }

    @Option(names = "--ctrl-loss-tmo", paramLabel = "SECONDS", description = D_CTRL_LOSS)
    void ctrlLossTmo(Integer value) {
        this.ctrlLossTmo = value;
    }

    @Option(names = "--reconnect-delay", paramLabel = "SECONDS", description = D_RECONNECT)
    void reconnectDelay(Integer value) {
        this.reconnectDelay = value;
    }

    @Option(names = "--hdr-digest", description = D_HDR_DIGEST)
    void hdrDigest(boolean value) {
        this.hdrDigest = value;
    }

    @Option(names = "--data-digest", description = D_DATA_DIGEST)
    void dataDigest(boolean value) {
        this.dataDigest = value;
    }

    @Option(names = "--disable-sqflow", description = D_DISABLE_SQFLOW)
    void disableSqFlow(boolean value) {
        this.disableSqFlow = value;
    }

    @Option(names = "--dhchap-secret", paramLabel = "SECRET", description = D_DHCHAP_SECRET)
    void dhchapSecret(String value) {
        this.dhchapSecret = value;
    }

    @Option(names = "--dhchap-ctrl-secret", paramLabel = "SECRET", description = D_DHCHAP_CTRL_SECRET)
    void dhchapCtrlSecret(String value) {
        this.dhchapCtrlSecret = value;
    }

    /**
     * Takes the address, port and NQNs of an SPDK transport ID ({@code perf -r}); a value the ID leaves out keeps
     * its option's. The ID wins over {@code --traddr} and the others when both are given.
     */
    public void useTransportId(String traddr, Integer trsvcid, String subnqn, String hostnqn) {
        useTransportId(null, traddr, trsvcid, subnqn, hostnqn);
    }

    /** As {@link #useTransportId(String, Integer, String, String)}, with the ID's trtype ("rdma", "tcp") too. */
    public void useTransportId(String trtype, String traddr, Integer trsvcid, String subnqn, String hostnqn) {
        if (trtype != null) {
            this.transport = trtype;
        }
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
