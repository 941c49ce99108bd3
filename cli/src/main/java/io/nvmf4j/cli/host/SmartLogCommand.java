package io.nvmf4j.cli.host;

import io.nvmf4j.cli.host.nvmecli.JsonC;
import io.nvmf4j.cli.host.nvmecli.SmartLogFormat;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.protocol.log.LogPageId;
import io.nvmf4j.protocol.log.SmartHealthLog;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nvmf4j smart-log}: the SMART / Health Information log (02h), as {@code nvme smart-log}. */
@Command(mixinStandardHelpOptions = true, versionProvider = io.nvmf4j.cli.VersionProvider.class,
        name = "smart-log", sortOptions = false,
        description = {"Print the SMART / health log (like nvme smart-log; -o json has nvme-cli 2.x's keys).",
            "-n is the namespace id, as in nvme-cli; connect options are long-only here (subsystem: --nqn)."})
public final class SmartLogCommand implements Callable<Integer> {

    @Option(names = {"-n", "--namespace-id"}, defaultValue = "0xffffffff", paramLabel = "NSID",
            converter = UnsignedConverter.class, description = "Namespace (default: ${DEFAULT-VALUE}, the controller).")
    long nsid;

    @Option(names = {"-b", "--raw-binary"}, description = "The raw log on stdout (the same as -o binary).")
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
            MemorySegment log = controller.getLogPage(LogPageId.SMART.code(), nsid, 0, SmartHealthLog.SIZE, false);
            switch (format) {
                case JSON -> {
                    spec.commandLine().getOut().print(JsonC.print(SmartLogFormat.json(log)));
                    spec.commandLine().getOut().flush();
                }
                case BINARY -> RawOutput.write(log);
                case NORMAL -> SmartLogFormat.text(spec.commandLine().getOut(), fabric.endpoint(), nsid, log);
            }
        }
        return 0;
    }
}
