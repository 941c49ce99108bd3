package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nvmf4j flush}: the NVM Flush command (NVMe NVM Command Set 1.0, 3.2.1), as {@code nvme flush}. */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "flush", sortOptions = false,
        description = {"Commit the namespace's volatile write cache (like nvme flush).",
            "-n is the namespace id, as in nvme-cli; connect options are long-only here (subsystem: --nqn)."})
public final class FlushCli implements Callable<Integer> {

    @Option(names = {"-n", "--namespace-id"}, paramLabel = "NSID",
            description = "Namespace (default: the first active one).")
    Long nsid;

    @Option(names = {"-v", "--verbose"}, description = "On failure, print the whole cause chain and stack trace.")
    boolean verbose;

    @Mixin
    DeviceConnection device;

    @Override
    public Integer call() throws Exception {
        return device.run(1, controller -> {
            DeviceNamespaces.of(controller, nsid, device.fabric.endpoint()).flush();
            device.say("NVMe Flush: success");
        });
    }
}
