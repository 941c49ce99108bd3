package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.nvmecli.HexDump;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nvmf4j get-log}: any log page (Get Log Page, NVMe Base 2.0, 5.16), dumped as {@code nvme get-log}. */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "get-log", sortOptions = false,
        description = {"Read a log page and print it as a hex dump, or raw with -b (like nvme get-log).",
            "Collisions with the connect options, which are long-only here: -i --log-id (queues: "
                + "--nr-io-queues), -n --namespace-id (subsystem: --nqn), -l --log-len (--ctrl-loss-tmo)."},
        footer = {"", "Example: nvmf4j get-log --traddr 127.0.0.1 -i 2 -l 512"})
public final class GetLogCommand implements Callable<Integer> {

    @Option(names = {"-i", "--log-id"}, required = true, paramLabel = "LID", description = "Log page identifier.")
    int logId;

    @Option(names = {"-l", "--log-len"}, required = true, paramLabel = "BYTES",
            description = "How many bytes to retrieve (a multiple of 4).")
    int logLen;

    @Option(names = {"-n", "--namespace-id"}, defaultValue = "0xffffffff", paramLabel = "NSID",
            converter = UnsignedConverter.class, description = "Namespace (default: ${DEFAULT-VALUE}, all).")
    long nsid;

    @Option(names = {"-o", "--lpo"}, defaultValue = "0", paramLabel = "OFFSET",
            description = "Log page offset in bytes (default: ${DEFAULT-VALUE}).")
    long lpo;

    @Option(names = {"-r", "--rae"}, description = "Retain an asynchronous event.")
    boolean rae;

    @Option(names = {"-b", "--raw-binary"}, description = "The raw log on stdout.")
    boolean rawBinary;

    @Option(names = {"-v", "--verbose"}, description = "On failure, print the whole cause chain and stack trace.")
    boolean verbose;

    @Mixin
    DeviceConnection device;

    @Override
    public Integer call() throws Exception {
        if (logLen <= 0) {
            throw new UsageProblem("get-log: non-zero -l/--log-len is required");
        }
        if (logLen % 4 != 0 || lpo % 4 != 0) {
            throw new UsageProblem("get-log: -l/--log-len and -o/--lpo must be multiples of 4 (dwords)");
        }
        if (logId < 0 || logId > 0xff) {
            throw new UsageProblem("get-log: -i/--log-id " + logId + " outside 0..255");
        }
        return device.run(0, controller -> {
            MemorySegment log = controller.getLogPage(logId, nsid, lpo, logLen, rae);
            if (rawBinary) {
                RawOutput.write(log);
            } else {
                device.spec.commandLine().getOut().printf("Device:%s log-id:%d namespace-id:%#x%n", device.fabric.endpoint(),
                        logId, nsid);
                HexDump.print(device.spec.commandLine().getOut(), log, logLen);
            }
        });
    }
}
