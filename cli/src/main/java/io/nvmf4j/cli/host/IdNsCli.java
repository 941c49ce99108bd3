package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.nvmecli.IdNsFormat;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nvmf4j id-ns}: Identify Namespace, every field, as {@code nvme id-ns} prints it. */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "id-ns", sortOptions = false,
        description = {"Connect and print Identify Namespace like nvme id-ns: -o json is nvme-cli 2.x's flat "
                + "object (nguid, eui64, anagrpid, lbafs[]), -o binary the raw 4096 bytes.",
            "-n is the namespace id, as in nvme-cli; the subsystem NQN is --nqn (connect options are long-only "
                + "here)."})
public final class IdNsCli implements Callable<Integer> {

    @Option(names = {"-n", "--namespace-id"}, paramLabel = "NSID",
            description = "Namespace to identify (default: the first active one).")
    Long nsid;

    @Option(names = {"-b", "--raw-binary"}, description = "The raw structure on stdout (the same as -o binary).")
    boolean rawBinary;

    @Option(names = {"-H", "--human-readable"},
            description = "Decode the bit fields (nsfeat, flbas, dpc, rescap ...) and the LBA formats, as nvme-cli.")
    boolean human;

    @Mixin
    OutputOptions output;

    @Mixin
    DeviceConnection device;

    @Override
    public Integer call() throws Exception {
        OutputOptions.Format format = output.format(rawBinary);
        return device.run(0, controller -> {
            long id = nsid != null ? nsid : firstActive(controller);
            device.print(format, controller.identifyNamespace(id).segment(), IdNsFormat::json,
                    (out, data) -> IdNsFormat.text(out, id, data, human));
        });
    }

    private long firstActive(NvmeController controller) throws NvmfException {
        List<Long> ids = controller.activeNamespaceIds();
        if (ids.isEmpty()) {
            throw new CommandFailure("the subsystem at " + device.fabric.endpoint() + " has no active namespace");
        }
        return ids.getFirst();
    }
}
