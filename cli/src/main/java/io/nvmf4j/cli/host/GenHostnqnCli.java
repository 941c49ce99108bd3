package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.initiator.HostIdentity;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code nvmf4j gen-hostnqn}: prints a host NQN as {@code nvme gen-hostnqn} does, the uuid NQN of the machine's DMI
 * system UUID (the same on every run) or of a random UUID where there is none. Nothing is written; to keep it,
 * redirect it into {@code /etc/nvme/hostnqn}.
 */
@Command(name = "gen-hostnqn", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Generate a host NQN (like nvme gen-hostnqn): nqn.2014-08.org.nvmexpress:uuid: and the DMI "
                + "system UUID, else a random UUID.",
            "Example: nvmf4j gen-hostnqn > /etc/nvme/hostnqn (the host commands then use it)"})
public final class GenHostnqnCli implements Callable<Integer> {

    /** Where the system UUID is read (tests name their own file). */
    HostIdentity.Sources sources = HostIdentity.Sources.system();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getOut().println(HostIdentity.generateHostNqn(sources).value());
        spec.commandLine().getOut().flush();
        return 0;
    }
}
