package io.nvmf4j.cli.host;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.Discovery;
import io.nvmf4j.initiator.DiscoveryLog;
import io.nvmf4j.initiator.DiscoveryRecord;
import io.nvmf4j.initiator.MultipathController;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfConnectException;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.initiator.ConnectRefusal;
import io.nvmf4j.initiator.NvmfStatusException;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import java.net.InetSocketAddress;
import java.util.function.UnaryOperator;

/** Connecting from the command line: the library's exceptions become one {@link CommandFailure} line each. */
public final class Connections {

    private Connections() {
    }

    /** Reads the discovery log at the address in {@code fabric}. */
    public static DiscoveryLog discover(FabricOptions fabric) {
        ConnectOptions options = fabric.discoveryOptions();
        try {
            return Discovery.discover(options);
        } catch (NvmfException e) {
            throw failure(fabric, options, e);
        }
    }

    /**
     * Connects to the subsystem named with {@code -n}; without {@code -n}, to the first NVM subsystem the
     * discovery log at the same address lists (a convenience nvme-cli does not have: one target, one subsystem).
     */
    public static NvmeController connect(FabricOptions fabric, UnaryOperator<ConnectOptions.Builder> tune) {
        Nqn subsystem = fabric.subsystemNqn();
        if (subsystem == null) {
            subsystem = firstSubsystem(fabric, discover(fabric));
        }
        ConnectOptions options = tune.apply(fabric.builder(subsystem)).build();
        try {
            return NvmeController.connect(options);
        } catch (NvmfException e) {
            throw failure(fabric, options, e);
        }
    }

    /**
     * Connects one controller per address in {@code paths} to the same subsystem (named with the NQN option, else
     * the first NVM subsystem of the discovery log at the first address) and joins them into one
     * {@link MultipathController}.
     */
    public static MultipathController connectMultipath(FabricOptions fabric, java.util.List<InetSocketAddress> paths,
            UnaryOperator<ConnectOptions.Builder> tune) {
        Nqn subsystem = fabric.subsystemNqn();
        if (subsystem == null) {
            subsystem = firstSubsystem(fabric, discover(fabric));
        }
        java.util.List<ConnectOptions> options = new java.util.ArrayList<>();
        for (InetSocketAddress a : paths) {
            options.add(tune.apply(fabric.builder(subsystem)).address(a).build());
        }
        try {
            return MultipathController.connect(options);
        } catch (NvmfException e) {
            throw failure(fabric, options.get(0), e);
        }
    }

    static Nqn firstSubsystem(FabricOptions fabric, DiscoveryLog log) {
        for (DiscoveryRecord r : log.records()) {
            if (r.subtype() == DiscoveryLogEntry.SUBTYPE_NVME) {
                try {
                    return Nqn.parse(r.subnqn());
                } catch (RuntimeException e) {
                    throw new CommandFailure("the discovery log at " + fabric.endpoint() + " lists subsystem '"
                            + r.subnqn() + "', which is not a usable NQN (" + e.getMessage() + ")", e);
                }
            }
        }
        throw new CommandFailure("the discovery log at " + fabric.endpoint() + " lists no NVM subsystem; "
                + "name one with -n/--nqn");
    }

    static CommandFailure failure(FabricOptions fabric, ConnectOptions options, NvmfException e) {
        String where = "cannot connect to " + fabric.endpoint() + ": ";
        if (e instanceof NvmfConnectException c) {
            return new CommandFailure(where + FailureReport.connectReason(c, options.connectTimeout().toMillis()), e);
        }
        if (e instanceof NvmfStatusException s) {
            // which Connect field the target refused, as Linux logs it: the status name alone does not say
            String meaning = ConnectRefusal.explain(s, options.subsystemNqn().value(),
                    options.host().hostNqn().value()).map(m -> ": " + m).orElse("");
            return new CommandFailure(where + s.command() + ": " + FailureReport.statusText(s) + meaning, e);
        }
        return new CommandFailure(where + FailureReport.stripQueueName(e.getMessage()), e);
    }
}
