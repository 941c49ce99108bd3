package io.nvmf4j.cli;

import io.nvmf4j.cli.host.FailureReport;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code nvmf4j} command: entry point of the CLI jar.
 *
 * <p>Start-up (issue 16): picocli builds a command's model by reflection over its annotated fields, and a
 * command's field types pull in their classes (Jackson, Micrometer, FUSE bindings...). So {@link #commandLine}
 * registers only the subcommand the arguments name (nvmf4j discover ... builds the model of discover alone), and
 * every subcommand only when the arguments need the whole tree (no subcommand, {@code help}, an unknown name).
 */
@Command(
        name = "nvmf4j",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "NVMe over Fabrics (RDMA) for the JVM: target daemon, initiator and tools.")
public final class Nvmf4j implements Callable<Integer> {

    /** Every subcommand by name, in the order the usage lists them; resolved only when used. */
    static final Map<String, String> SUBCOMMANDS = new LinkedHashMap<>();

    static {
        SUBCOMMANDS.put("modules", "io.nvmf4j.cli.ModulesCli");
        SUBCOMMANDS.put("rping", "io.nvmf4j.cli.RpingCli");
        SUBCOMMANDS.put("serve", "io.nvmf4j.cli.serve.ServeCli");
        SUBCOMMANDS.put("rpc", "io.nvmf4j.cli.ctl.RpcCli");
        SUBCOMMANDS.put("ctl", "io.nvmf4j.cli.ctl.CtlCli");
        SUBCOMMANDS.put("discover", "io.nvmf4j.cli.host.DiscoverCli");
        SUBCOMMANDS.put("identify", "io.nvmf4j.cli.host.IdentifyCli");
        SUBCOMMANDS.put("id-ctrl", "io.nvmf4j.cli.host.IdCtrlCli");
        SUBCOMMANDS.put("id-ns", "io.nvmf4j.cli.host.IdNsCli");
        SUBCOMMANDS.put("read", "io.nvmf4j.cli.host.ReadCli");
        SUBCOMMANDS.put("write", "io.nvmf4j.cli.host.WriteCli");
        SUBCOMMANDS.put("flush", "io.nvmf4j.cli.host.FlushCli");
        SUBCOMMANDS.put("dsm", "io.nvmf4j.cli.host.DsmCli");
        SUBCOMMANDS.put("write-zeroes", "io.nvmf4j.cli.host.WriteZeroesCli");
        SUBCOMMANDS.put("get-log", "io.nvmf4j.cli.host.GetLogCli");
        SUBCOMMANDS.put("get-feature", "io.nvmf4j.cli.host.GetFeatureCli");
        SUBCOMMANDS.put("smart-log", "io.nvmf4j.cli.host.SmartLogCli");
        SUBCOMMANDS.put("error-log", "io.nvmf4j.cli.host.ErrorLogCli");
        SUBCOMMANDS.put("list-subsys", "io.nvmf4j.cli.host.ListSubsysCli");
        SUBCOMMANDS.put("gen-hostnqn", "io.nvmf4j.cli.host.GenHostnqnCli");
        SUBCOMMANDS.put("show-hostnqn", "io.nvmf4j.cli.host.ShowHostnqnCli");
        SUBCOMMANDS.put("perf", "io.nvmf4j.cli.perf.PerfCli");
        SUBCOMMANDS.put("demo", "io.nvmf4j.cli.demo.DemoCli");
        SUBCOMMANDS.put("mount", "io.nvmf4j.cli.mount.MountCli");
        SUBCOMMANDS.put("umount", "io.nvmf4j.cli.mount.UmountCli");
        SUBCOMMANDS.put("ublk", "io.nvmf4j.cli.mount.UblkAdminCli");
        SUBCOMMANDS.put("gen-dhchap-key", "io.nvmf4j.cli.dhchap.GenDhchapKeyCli");
        SUBCOMMANDS.put("check-dhchap-key", "io.nvmf4j.cli.dhchap.CheckDhchapKeyCli");
    }

    @Override
    public Integer call() {
        // No subcommand: show what this build contains, then the usage.
        ModulesCli.print(System.out);
        System.out.println();
        commandLine().usage(System.out);
        return 0;
    }

    /** The whole command tree. */
    public static CommandLine commandLine() {
        CommandLine cl = root();
        for (String name : SUBCOMMANDS.keySet()) {
            cl.addSubcommand(name, instantiate(name));
        }
        cl.addSubcommand("help", new CommandLine.HelpCommand());
        return WordWrappingHelp.install(cl);
    }

    /** The tree {@code args} need: the named subcommand alone, no subcommand for -V, else all of them. */
    public static CommandLine commandLine(String... args) {
        if (args.length > 0 && SUBCOMMANDS.containsKey(args[0])) {
            CommandLine cl = root();
            cl.addSubcommand(args[0], instantiate(args[0]));
            return WordWrappingHelp.install(cl);
        }
        if (args.length == 1 && ("--version".equals(args[0]) || "-V".equals(args[0]))) {
            return WordWrappingHelp.install(root());
        }
        return commandLine();
    }

    private static CommandLine root() {
        return new CommandLine(new Nvmf4j()).setExecutionExceptionHandler(new FailureReport());
    }

    private static Object instantiate(String name) {
        try {
            return Class.forName(SUBCOMMANDS.get(name)).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("subcommand " + name + " cannot be created", e);
        }
    }

    public static void main(String[] args) {
        System.exit(commandLine(args).execute(args));
    }
}
