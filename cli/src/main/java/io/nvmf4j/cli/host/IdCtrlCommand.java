package io.nvmf4j.cli.host;

import io.nvmf4j.cli.host.nvmecli.IdCtrlFormat;
import io.nvmf4j.cli.host.nvmecli.JsonC;
import io.nvmf4j.initiator.NvmeController;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nvmf4j id-ctrl}: Identify Controller, every field, as {@code nvme id-ctrl} prints it. */
@Command(mixinStandardHelpOptions = true, versionProvider = io.nvmf4j.cli.VersionProvider.class,
        name = "id-ctrl", sortOptions = false,
        description = {"Connect and print Identify Controller like nvme id-ctrl: -o json is nvme-cli 2.x's flat "
                + "object (jq .sn works), -o binary the raw 4096 bytes.",
            "Connect options are long-only here, as on every nvme-cli device command (nvme-cli gives their "
                + "letters to its own options); see 'nvmf4j discover --help' for the short forms."},
        footer = {"", "Example: nvmf4j id-ctrl --traddr 127.0.0.1 --trsvcid 4420 -o json | jq -r .sn"})
public final class IdCtrlCommand implements Callable<Integer> {

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
        // Admin queue only: Identify moves 4 KiB on it; no I/O queue is worth its set-up here.
        try (NvmeController controller = Connections.connect(fabric, b -> b.ioQueues(0))) {
            java.lang.foreign.MemorySegment data = controller.identify().segment();
            switch (format) {
                case JSON -> {
                    spec.commandLine().getOut().print(JsonC.print(IdCtrlFormat.json(data)));
                    spec.commandLine().getOut().flush();
                }
                case BINARY -> RawOutput.write(data);
                case NORMAL -> IdCtrlFormat.text(spec.commandLine().getOut(), data);
            }
        }
        return 0;
    }
}
