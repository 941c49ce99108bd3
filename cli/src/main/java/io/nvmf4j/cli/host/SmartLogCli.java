package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.nvmecli.SmartLogFormat;
import io.nvmf4j.protocol.log.LogPageId;
import io.nvmf4j.protocol.log.SmartHealthLog;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nvmf4j smart-log}: the SMART / Health Information log (02h), as {@code nvme smart-log}. */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "smart-log", sortOptions = false,
        description = {"Print the SMART / health log (like nvme smart-log; -o json has nvme-cli 2.x's keys).",
            "-n is the namespace id, as in nvme-cli; connect options are long-only here (subsystem: --nqn)."})
public final class SmartLogCli implements Callable<Integer> {

    @Option(names = {"-n", "--namespace-id"}, defaultValue = "0xffffffff", paramLabel = "NSID",
            converter = UnsignedConverter.class, description = "Namespace (default: ${DEFAULT-VALUE}, the controller).")
    long nsid;

    @Option(names = {"-b", "--raw-binary"}, description = "The raw log on stdout (the same as -o binary).")
    boolean rawBinary;

    @Option(names = {"-H", "--human-readable"}, description = "Decode the critical warning bits, as nvme-cli.")
    boolean human;

    @Mixin
    OutputOptions output;

    @Mixin
    DeviceConnection device;

    @Override
    public Integer call() throws Exception {
        OutputOptions.Format format = output.format(rawBinary);
        return device.run(0, controller -> {
            MemorySegment log = controller.getLogPage(LogPageId.SMART.code(), nsid, 0, SmartHealthLog.SIZE, false);
            device.print(format, log, SmartLogFormat::json,
                    (out, l) -> SmartLogFormat.text(out, device.fabric.endpoint(), nsid, l, human));
        });
    }
}
