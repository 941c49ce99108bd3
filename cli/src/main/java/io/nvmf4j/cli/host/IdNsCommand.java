package io.nvmf4j.cli.host;

import io.nvmf4j.cli.host.nvmecli.IdNsFormat;
import io.nvmf4j.cli.host.nvmecli.JsonC;
import io.nvmf4j.initiator.NvmeController;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nvmf4j id-ns}: Identify Namespace, every field, as {@code nvme id-ns} prints it. */
@Command(mixinStandardHelpOptions = true, versionProvider = io.nvmf4j.cli.VersionProvider.class,
        name = "id-ns", sortOptions = false,
        description = {"Connect and print Identify Namespace like nvme id-ns: -o json is nvme-cli 2.x's flat "
                + "object (nguid, eui64, anagrpid, lbafs[]), -o binary the raw 4096 bytes.",
            "-n is the namespace id, as in nvme-cli; the subsystem NQN is --nqn (connect options are long-only "
                + "here)."})
public final class IdNsCommand implements Callable<Integer> {

    @Option(names = {"-n", "--namespace-id"}, paramLabel = "NSID",
            description = "Namespace to identify (default: the first active one).")
    Long nsid;

    @Option(names = {"-b", "--raw-binary"}, description = "The raw structure on stdout (the same as -o binary).")
    boolean rawBinary;

    @Mixin
    OutputOptions output;

    @Mixin
    LongConnectFlags fabric;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        CommandLogging.configure(output.verbose);
        OutputOptions.Format format = rawBinary ? OutputOptions.Format.BINARY : output.format();
        try (NvmeController controller = Connections.connect(fabric, b -> b.ioQueues(0))) {
            long id = nsid != null ? nsid : firstActive(controller);
            MemorySegment data = controller.identifyNamespace(id).segment();
            switch (format) {
                case JSON -> {
                    spec.commandLine().getOut().print(JsonC.print(IdNsFormat.json(data)));
                    spec.commandLine().getOut().flush();
                }
                case BINARY -> RawOutput.write(data);
                case NORMAL -> IdNsFormat.text(spec.commandLine().getOut(), id, data);
            }
        }
        return 0;
    }

    private long firstActive(NvmeController controller) throws io.nvmf4j.initiator.NvmfException {
        java.util.List<Long> ids = controller.activeNamespaceIds();
        if (ids.isEmpty()) {
            throw new CommandFailure("the subsystem at " + fabric.endpoint() + " has no active namespace");
        }
        return ids.getFirst();
    }
}
