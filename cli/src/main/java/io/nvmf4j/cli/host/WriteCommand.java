package io.nvmf4j.cli.host;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code nvmf4j write}: a file or stdin onto a remote namespace from {@code --start-block} (like nvme write).
 * Without {@code --block-count} the whole input is written, its last partial block padded with zeros.
 */
@Command(name = "write", description = "Write a file or stdin to logical blocks (like nvme write).",
        sortOptions = false)
public final class WriteCommand implements Callable<Integer> {

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
        if (range.blockCount != null && range.blockCount < 1) {
            throw new UsageProblem("write: --block-count must be at least 1");
        }
        if (range.data != null && !Files.isReadable(range.data)) {
            throw new CommandFailure("write: " + range.data + ": no such file or not readable");
        }
        try (NvmeController controller = Connections.connect(fabric, b -> b.ioQueues(1))) {
            Namespace ns = range.namespace(controller, fabric.endpoint());
            long start = System.nanoTime();
            long blocks;
            try (IoBuffer buffer = controller.allocateBuffer(BlockTransfer.CHUNK_BYTES);
                 InputStream in = range.data != null ? new BufferedInputStream(Files.newInputStream(range.data))
                         : System.in) {
                blocks = BlockTransfer.write(ns, buffer, range.startBlock, range.blockCount, in);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long bytes = blocks * ns.blockSize();
            if (output.json) {
                Json.print(spec.commandLine().getOut(), summary("write", ns, range.startBlock, blocks, bytes, seconds));
            } else {
                spec.commandLine().getOut().println(summaryLine("write", ns, range.startBlock, blocks, bytes, seconds));
                spec.commandLine().getOut().flush();
            }
        }
        return 0;
    }

    static ObjectNode summary(String op, Namespace ns, long slba, long blocks, long bytes, double seconds) {
        ObjectNode o = Json.object();
        o.put("operation", op);
        o.put("status", "Success");
        o.put("nsid", ns.nsid());
        o.put("start_block", slba);
        o.put("block_count", blocks);
        o.put("block_size", ns.blockSize());
        o.put("bytes", bytes);
        o.put("seconds", seconds);
        return o;
    }

    static String summaryLine(String op, Namespace ns, long slba, long blocks, long bytes, double seconds) {
        return String.format(Locale.ROOT, "%s: Success, nsid %d, %d blocks of %d bytes at LBA %d (%d bytes, %.3f s)",
                op, ns.nsid(), blocks, ns.blockSize(), slba, bytes, seconds);
    }
}
