package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.nvmecli.HexDump;
import io.nvmf4j.initiator.NvmfStatusException;
import io.nvmf4j.protocol.StatusCode;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Optional;
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
public final class GetLogCli implements Callable<Integer> {

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

    /**
     * Logs that Linux nvmet (and nvmf4j's target, as nvmet) returns only whole, answering any other length with a
     * bare Internal Error (nvmet_execute_get_log_page_smart(), _changed_ns()): their ID, name and size.
     */
    private static final Map<Integer, Map.Entry<String, Integer>> WHOLE_ONLY = Map.of(
            0x02, Map.entry("SMART / Health Information", 512),
            0x04, Map.entry("Changed Namespace List", 4096));

    /** What an Internal Error for a partial read of a whole-only log means, and the length that works. */
    Optional<String> partialReadHint(NvmfStatusException e) {
        Map.Entry<String, Integer> whole = WHOLE_ONLY.get(logId);
        if (whole == null || e.statusCode().orElse(null) != StatusCode.INTERNAL
                || (logLen == whole.getValue() && lpo == 0)) {
            return Optional.empty();
        }
        return Optional.of(String.format("the %s log (%02xh) is %d bytes, and targets like Linux nvmet return it "
                + "only whole: read it with -l %d%s", whole.getKey(), logId, whole.getValue(), whole.getValue(),
                lpo == 0 ? "" : " and no -o/--lpo"));
    }

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
            MemorySegment log;
            try {
                log = controller.getLogPage(logId, nsid, lpo, logLen, rae);
            } catch (NvmfStatusException e) {
                throw partialReadHint(e).map(h -> new CommandFailure("get-log failed: "
                        + FailureReport.statusText(e) + ": " + h, e)).orElseThrow(() -> e);
            }
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
