package io.nvmf4j.cli.host;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code nvmf4j read}: an LBA range of a remote namespace into a file or stdout (like nvme read). */
@Command(name = "read", description = "Read logical blocks into a file or stdout (like nvme read).",
        sortOptions = false)
public final class ReadCommand implements Callable<Integer> {

    @Mixin
    ConnectFlags fabric;

    @Mixin
    BlockRangeOptions range;

    @Mixin
    OutputOptions output;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        io.nvmf4j.cli.host.CommandLogging.configure(output.verbose);
        if (range.blockCount == null) {
            throw new UsageProblem("read: --block-count is required");
        }
        if (range.blockCount < 1) {
            throw new UsageProblem("read: --block-count must be at least 1");
        }
        if (output.json && range.data == null) {
            throw new UsageProblem("read: --json prints the summary on stdout; give the data a file with --data");
        }
        try (NvmeController controller = Connections.connect(fabric, b -> b.ioQueues(1))) {
            Namespace ns = range.namespace(controller, fabric.endpoint());
            long start = System.nanoTime();
            long bytes;
            try (IoBuffer buffer = controller.allocateBuffer(BlockTransfer.CHUNK_BYTES);
                 OutputStream out = range.data != null
                         ? new BufferedOutputStream(Files.newOutputStream(range.data))
                         : new BufferedOutputStream(new FileOutputStream(java.io.FileDescriptor.out))) {
                bytes = BlockTransfer.read(ns, buffer, range.startBlock, range.blockCount, out);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            ObjectNode summary = WriteCommand.summary("read", ns, range.startBlock, range.blockCount, bytes, seconds);
            if (output.json) {
                Json.print(spec.commandLine().getOut(), summary);
            } else {
                spec.commandLine().getErr().println(WriteCommand.summaryLine("read", ns, range.startBlock,
                        range.blockCount, bytes, seconds));
                spec.commandLine().getErr().flush();
            }
        }
        return 0;
    }
}
