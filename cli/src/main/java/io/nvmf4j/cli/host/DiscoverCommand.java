package io.nvmf4j.cli.host;

import io.nvmf4j.initiator.DiscoveryLog;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code nvmf4j discover}: reads the Discovery Log Page (log 70h) and prints it like {@code nvme discover}. */
@Command(name = "discover", description = "Print the discovery log of a target (like nvme discover).",
        sortOptions = false)
public final class DiscoverCommand implements Callable<Integer> {

    @Mixin
    ConnectFlags fabric;

    @Mixin
    OutputOptions output;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        io.nvmf4j.cli.host.CommandLogging.configure(output.verbose);
        DiscoveryLog log = Connections.discover(fabric);
        PrintWriter out = spec.commandLine().getOut();
        if (output.json) {
            Json.print(out, DiscoveryLogText.json(log));
        } else {
            DiscoveryLogText.print(out, log);
        }
        return 0;
    }
}
