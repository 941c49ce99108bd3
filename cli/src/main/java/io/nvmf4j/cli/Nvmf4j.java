package io.nvmf4j.cli;

import java.util.concurrent.Callable;
import io.nvmf4j.cli.demo.DemoCommand;
import io.nvmf4j.cli.host.DiscoverCommand;
import io.nvmf4j.cli.host.FailureReport;
import io.nvmf4j.cli.host.IdentifyCommand;
import io.nvmf4j.cli.host.ReadCommand;
import io.nvmf4j.cli.host.WriteCommand;
import io.nvmf4j.cli.perf.PerfCommand;
import io.nvmf4j.cli.serve.ServeCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code nvmf4j} command: entry point of the CLI jar. */
@Command(
        name = "nvmf4j",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "NVMe over Fabrics (RDMA) for the JVM: target daemon, initiator and tools.",
        subcommands = {
            ServeCommand.class, DiscoverCommand.class, IdentifyCommand.class, ReadCommand.class, WriteCommand.class,
            PerfCommand.class, DemoCommand.class, RpingCommand.class, ModulesCommand.class,
            CommandLine.HelpCommand.class})
public final class Nvmf4j implements Callable<Integer> {

    @Override
    public Integer call() {
        // No subcommand: show what this build contains, then the usage.
        ModulesCommand.print(System.out);
        System.out.println();
        new CommandLine(this).usage(System.out);
        return 0;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Nvmf4j())
                .setExecutionExceptionHandler(new FailureReport()).execute(args));
    }
}
