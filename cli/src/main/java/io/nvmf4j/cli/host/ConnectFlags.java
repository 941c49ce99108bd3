package io.nvmf4j.cli.host;

import picocli.CommandLine.Option;

/**
 * The connect options with nvme-cli's letters ({@code nvme connect} / {@code nvme discover}, {@code fabrics.c}):
 * {@code -t -a -s -n -q -I -i -Q -k -l -c -S -C}; for discover, identify, list-subsys, mount.
 */
public final class ConnectFlags extends FabricOptions {

    @Option(names = {"-a", "--traddr"}, defaultValue = "127.0.0.1", paramLabel = "TRADDR", description = D_TRADDR)
    String traddr = "127.0.0.1";

    @Option(names = {"-s", "--trsvcid"}, defaultValue = "4420", paramLabel = "TRSVCID", description = D_TRSVCID)
    int trsvcid = 4420;

    @Option(names = {"-n", "--nqn"}, paramLabel = "SUBNQN", description = D_NQN)
    String nqn;

    @Option(names = {"-t", "--transport"}, defaultValue = "rdma", paramLabel = "TRTYPE", description = D_TRANSPORT)
    String transport = "rdma";

    @Option(names = {"-q", "--hostnqn"}, paramLabel = "HOSTNQN", description = D_HOSTNQN)
    String hostnqn;

    @Option(names = {"-I", "--hostid"}, paramLabel = "HOSTID", description = D_HOSTID)
    String hostid;

    @Option(names = {"-i", "--nr-io-queues"}, paramLabel = "N", description = D_NR_IO_QUEUES)
    Integer nrIoQueues;

    @Option(names = {"-Q", "--queue-size"}, paramLabel = "N", description = D_QUEUE_SIZE)
    Integer queueSize;

    @Option(names = {"-k", "--keep-alive-tmo"}, paramLabel = "SECONDS", description = D_KATO)
    Integer keepAliveTmo;

    @Option(names = {"-l", "--ctrl-loss-tmo"}, paramLabel = "SECONDS", description = D_CTRL_LOSS)
    Integer ctrlLossTmo;

    @Option(names = {"-c", "--reconnect-delay"}, paramLabel = "SECONDS", description = D_RECONNECT)
    Integer reconnectDelay;

    @Option(names = {"-S", "--dhchap-secret"}, paramLabel = "SECRET", description = D_DHCHAP_SECRET)
    String dhchapSecret;

    @Option(names = {"-C", "--dhchap-ctrl-secret"}, paramLabel = "SECRET", description = D_DHCHAP_CTRL_SECRET)
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
}
