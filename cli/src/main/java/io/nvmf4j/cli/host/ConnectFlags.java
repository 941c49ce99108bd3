package io.nvmf4j.cli.host;

import picocli.CommandLine.Option;

/**
 * The connect options with nvme-cli's letters ({@code nvme connect} / {@code nvme discover}, {@code fabrics.c}):
 * {@code -t -a -s -n -q -I -i -Q -k -l -c -S -C}, and {@code --hdr-digest}, {@code --data-digest},
 * {@code --disable-sqflow} (nvme-cli's {@code -g}/{@code -G}/{@code -d}, long names only here); for discover,
 * identify, list-subsys, mount.
 */
public final class ConnectFlags extends FabricOptions {

    @Option(names = {"-a", "--traddr"}, defaultValue = "127.0.0.1", paramLabel = "TRADDR", description = D_TRADDR)
    void traddr(String value) {
        this.traddr = value;
    }

    @Option(names = {"-s", "--trsvcid"}, defaultValue = "4420", paramLabel = "TRSVCID", description = D_TRSVCID)
    void trsvcid(int value) {
        this.trsvcid = value;
    }

    @Option(names = {"-n", "--nqn"}, paramLabel = "SUBNQN", description = D_NQN)
    void nqn(String value) {
        this.nqn = value;
    }

    @Option(names = {"-t", "--transport"}, defaultValue = "rdma", paramLabel = "TRTYPE", description = D_TRANSPORT)
    void transport(String value) {
        this.transport = value;
    }

    @Option(names = {"-q", "--hostnqn"}, paramLabel = "HOSTNQN", description = D_HOSTNQN)
    void hostnqn(String value) {
        this.hostnqn = value;
    }

    @Option(names = {"-I", "--hostid"}, paramLabel = "HOSTID", description = D_HOSTID)
    void hostid(String value) {
        this.hostid = value;
    }

    @Option(names = {"-i", "--nr-io-queues"}, paramLabel = "N", description = D_NR_IO_QUEUES)
    void nrIoQueues(Integer value) {
        this.nrIoQueues = value;
    }

    @Option(names = {"-Q", "--queue-size"}, paramLabel = "N", description = D_QUEUE_SIZE)
    void queueSize(Integer value) {
        this.queueSize = value;
    }

    @Option(names = {"-k", "--keep-alive-tmo"}, paramLabel = "SECONDS", description = D_KATO)
    void keepAliveTmo(Integer value) {
        this.keepAliveTmo = value;
    }

    @Option(names = {"-l", "--ctrl-loss-tmo"}, paramLabel = "SECONDS", description = D_CTRL_LOSS)
    void ctrlLossTmo(Integer value) {
        this.ctrlLossTmo = value;
    }

    @Option(names = {"-c", "--reconnect-delay"}, paramLabel = "SECONDS", description = D_RECONNECT)
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

    @Option(names = {"-S", "--dhchap-secret"}, paramLabel = "SECRET", description = D_DHCHAP_SECRET)
    void dhchapSecret(String value) {
        this.dhchapSecret = value;
    }

    @Option(names = {"-C", "--dhchap-ctrl-secret"}, paramLabel = "SECRET", description = D_DHCHAP_CTRL_SECRET)
    void dhchapCtrlSecret(String value) {
        this.dhchapCtrlSecret = value;
    }
}
