package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.nvmecli.ErrorLogFormat;
import io.nvmf4j.protocol.log.LogPageId;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nvmf4j error-log}: Error Information log entries (01h), as {@code nvme error-log}. */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "error-log", sortOptions = false,
        description = {"Print the error information log (like nvme error-log; -o json has nvme-cli 2.x's keys).",
            "Connect options are long-only here, as on every nvme-cli device command."})
public final class ErrorLogCli implements Callable<Integer> {

    @Option(names = {"-e", "--log-entries"}, paramLabel = "N",
            description = "Number of entries (default: ELPE+1 from Identify Controller, as nvme-cli).")
    Integer entries;

    @Option(names = {"-b", "--raw-binary"}, description = "The raw log on stdout (the same as -o binary).")
    boolean rawBinary;

    @Mixin
    OutputOptions output;

    @Mixin
    DeviceConnection device;

    @Override
    public Integer call() throws Exception {
        OutputOptions.Format format = output.format(rawBinary);
        return device.run(0, controller -> {
            int n = entries != null ? entries : controller.identify().elpe() + 1;
            if (n < 1 || n > 256) {
                throw new UsageProblem("error-log: -e/--log-entries " + n + " outside 1..256");
            }
            MemorySegment log = controller.getLogPage(LogPageId.ERROR.code(), 0xFFFF_FFFFL, 0,
                    n * ErrorLogFormat.ENTRY_SIZE, false);
            device.print(format, log, l -> ErrorLogFormat.json(l, n),
                    (out, l) -> ErrorLogFormat.text(out, device.fabric.endpoint(), l, n));
        });
    }
}
