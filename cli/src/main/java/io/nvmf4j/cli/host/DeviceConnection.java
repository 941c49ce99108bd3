package io.nvmf4j.cli.host;

import io.nvmf4j.cli.host.nvmecli.JsonC;
import io.nvmf4j.initiator.NvmeController;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Spec;

/**
 * The picocli mixin of every device command (nvme-cli's id-ctrl, id-ns, error-log, smart-log, get-log, read, write,
 * flush, dsm, write-zeroes): the connect options, long-only ({@link LongConnectFlags}), and what each such command
 * does around its own work, written once: the log level from {@code -v}, one connection with as many I/O queues as
 * the work needs (0: the admin queue only), close; nvme-cli's three ways to print a data structure
 * ({@code -o normal|json|binary}); and a command's one-line success message. A command declares its own options
 * before this mixin, so its help lists them first, as nvme-cli's does.
 */
public final class DeviceConnection {

    @Mixin
    public LongConnectFlags fabric;

    /** The command this mixin is part of (its output streams). */
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    /** A command's own work on the connected controller. */
    @FunctionalInterface
    interface Work {
        void run(NvmeController controller) throws Exception;
    }

    /**
     * Sets the log level from the command's {@code -v/--verbose} (read from its spec, as {@link FailureReport} reads
     * it from the parse result, whichever class declares it), connects (to {@code --nqn}, else the first NVM subsystem the discovery log
     * lists) with {@code ioQueues} I/O queues, runs {@code work} and disconnects; picocli's exit code 0.
     */
    int run(int ioQueues, Work work) throws Exception {
        OptionSpec verbose = spec.findOption("--verbose");
        CommandLogging.configure(verbose != null && Boolean.TRUE.equals(verbose.getValue()));
        try (NvmeController controller = Connections.connect(fabric, b -> b.ioQueues(ioQueues))) {
            work.run(controller);
        }
        return 0;
    }

    /** Prints {@code data} as {@code -o} asks: nvme-cli's JSON object, the raw bytes, or nvme-cli's text. */
    void print(OutputOptions.Format format, MemorySegment data,
            Function<MemorySegment, Map<String, Object>> json, BiConsumer<PrintWriter, MemorySegment> text)
            throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        switch (format) {
            case JSON -> {
                out.print(JsonC.print(json.apply(data)));
                out.flush();
            }
            case BINARY -> RawOutput.write(data);
            case NORMAL -> text.accept(out, data);
        }
    }

    /** One line on stdout, flushed: nvme-cli's success message ({@code "NVMe Flush: success"} and the like). */
    void say(String line) {
        PrintWriter out = spec.commandLine().getOut();
        out.println(line);
        out.flush();
    }
}
