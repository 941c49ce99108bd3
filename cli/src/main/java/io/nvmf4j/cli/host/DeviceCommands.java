package io.nvmf4j.cli.host;

import io.nvmf4j.cli.host.nvmecli.JsonC;
import io.nvmf4j.initiator.NvmeController;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What every device command (nvme-cli's id-ctrl, id-ns, error-log, smart-log, get-log, read, write, flush, dsm,
 * write-zeroes) does around its own work, written once: the log level from {@code -v}, one connection with as many
 * I/O queues as the work needs (0: the admin queue only), close; nvme-cli's three ways to print a data structure
 * ({@code -o normal|json|binary}); and a command's one-line success message. The picocli options themselves stay
 * declared in each command, which keeps each command's help in nvme-cli's order.
 */
final class DeviceCommands {

    /** A command's own work on the connected controller. */
    @FunctionalInterface
    interface Work {
        void run(NvmeController controller) throws Exception;
    }

    private DeviceCommands() {
    }

    /**
     * Sets the log level from {@code -v}, connects (to {@code --nqn}, else the first NVM subsystem the discovery log
     * lists) with {@code ioQueues} I/O queues, runs {@code work} and disconnects; picocli's exit code 0.
     */
    static int withController(boolean verbose, FabricOptions fabric, int ioQueues, Work work) throws Exception {
        CommandLogging.configure(verbose);
        try (NvmeController controller = Connections.connect(fabric, b -> b.ioQueues(ioQueues))) {
            work.run(controller);
        }
        return 0;
    }

    /** Prints {@code data} as {@code -o} asks: nvme-cli's JSON object, the raw bytes, or nvme-cli's text. */
    static void print(CommandSpec spec, OutputOptions.Format format, MemorySegment data,
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
    static void say(CommandSpec spec, String line) {
        PrintWriter out = spec.commandLine().getOut();
        out.println(line);
        out.flush();
    }
}
