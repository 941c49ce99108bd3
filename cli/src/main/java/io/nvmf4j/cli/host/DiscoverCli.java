package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.nvmecli.JsonC;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code nvmf4j discover}: reads the Discovery Log Page (log 70h) and prints it like {@code nvme discover}. */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "discover", description = "Print the discovery log of a target (like nvme discover; -o json has "
        + "nvme-cli 2.x's keys: jq '.records[].subnqn' works).", sortOptions = false)
public final class DiscoverCli implements Callable<Integer> {

    @Mixin
    ConnectFlags fabric;

    @Mixin
    OutputOptions output;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        CommandLogging.configure(output.verbose);
        OutputOptions.Format format = output.textOrJson("discover: -o binary is not supported; use normal or json");
        DiscoveryPage log = DiscoveryPage.read(fabric);
        PrintWriter out = spec.commandLine().getOut();
        if (format == OutputOptions.Format.JSON) {
            out.print(JsonC.print(DiscoveryLogText.json(log)));
            out.flush();
        } else {
            DiscoveryLogText.print(out, log);
        }
        return 0;
    }
}
