package io.nvmf4j.cli.host;

import picocli.CommandLine.Option;

/** {@link FabricOptions} with nvme-cli's short letters for transport and host NQN ({@code -t}, {@code -q}). */
public final class ConnectFlags extends FabricOptions {

    @Option(names = {"-t", "--transport"}, defaultValue = "rdma", paramLabel = "TRTYPE",
            description = "Transport type; only rdma (default: ${DEFAULT-VALUE}).")
    String transport = "rdma";

    @Option(names = {"-q", "--hostnqn"}, paramLabel = "HOSTNQN",
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
