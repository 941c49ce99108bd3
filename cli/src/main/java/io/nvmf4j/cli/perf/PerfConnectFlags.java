package io.nvmf4j.cli.perf;

import io.nvmf4j.cli.host.FabricOptions;
import picocli.CommandLine.Option;

/**
 * The connect options of {@code perf}: as elsewhere, except that {@code -q} and {@code -t} mean depth and time
 * (SPDK perf, fio), so transport and host NQN have long names only.
 */
public final class PerfConnectFlags extends FabricOptions {

    @Option(names = "--transport", defaultValue = "rdma", paramLabel = "TRTYPE",
            description = "Transport type; only rdma (default: ${DEFAULT-VALUE}).")
    String transport = "rdma";

    @Option(names = "--hostnqn", paramLabel = "HOSTNQN",
            description = "Host NQN (default: /etc/nvme/hostnqn, else a generated uuid NQN).")
    String hostnqn;

    @Override
    protected String transport() {
        return transport;
    }

    @Override
    protected String hostnqn() {
        return hostnqn;
    }
}
