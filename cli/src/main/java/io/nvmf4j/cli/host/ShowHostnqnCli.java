package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.initiator.HostIdentity;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code nvmf4j show-hostnqn}: prints the host NQN the host commands use when {@code --hostnqn} is not given, as
 * {@code nvme show-hostnqn} does: {@code LIBNVME_HOSTNQN} or the first line of {@code /etc/nvme/hostnqn}, else what
 * {@code gen-hostnqn} prints.
 */
@Command(name = "show-hostnqn", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Show the host NQN (like nvme show-hostnqn): /etc/nvme/hostnqn, else the one gen-hostnqn "
                + "prints.")
public final class ShowHostnqnCli implements Callable<Integer> {

    /** Where the host NQN is looked up (tests name their own files). */
    HostIdentity.Sources sources = HostIdentity.Sources.system();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        String nqn;
        try {
            nqn = HostIdentity.showHostNqn(sources).value();
        } catch (IllegalStateException e) {
            throw new CommandFailure("hostnqn is not available: " + e.getMessage(), e);
        }
        spec.commandLine().getOut().println(nqn);
        spec.commandLine().getOut().flush();
        return 0;
    }
}
