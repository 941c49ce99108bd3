package io.nvmf4j.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code nvmf4j} command: entry point of the CLI jar. */
@Command(
        name = "nvmf4j",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "NVMe over Fabrics (RDMA) for the JVM: target daemon, initiator and tools.",
        subcommands = {ModulesCommand.class, RpingCommand.class, io.nvmf4j.cli.serve.ServeCommand.class,
                io.nvmf4j.cli.host.DiscoverCommand.class, io.nvmf4j.cli.host.IdentifyCommand.class,
                io.nvmf4j.cli.host.IdCtrlCommand.class, io.nvmf4j.cli.host.IdNsCommand.class,
                io.nvmf4j.cli.host.ReadCommand.class, io.nvmf4j.cli.host.WriteCommand.class,
                io.nvmf4j.cli.host.FlushCommand.class, io.nvmf4j.cli.host.DsmCommand.class,
                io.nvmf4j.cli.host.WriteZeroesCommand.class, io.nvmf4j.cli.host.GetLogCommand.class,
                io.nvmf4j.cli.host.SmartLogCommand.class, io.nvmf4j.cli.host.ErrorLogCommand.class,
                io.nvmf4j.cli.perf.PerfCommand.class, io.nvmf4j.cli.demo.DemoCommand.class,
                io.nvmf4j.cli.mount.MountCommand.class, io.nvmf4j.cli.mount.UmountCommand.class,
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
                .setExecutionExceptionHandler(new io.nvmf4j.cli.host.FailureReport()).execute(args));
    }
}
