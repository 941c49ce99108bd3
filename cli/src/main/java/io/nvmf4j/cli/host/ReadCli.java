package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.Namespace;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code nvmf4j read}: an LBA range of a remote namespace into a file or stdout, as {@code nvme read}. */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "read", sortOptions = false,
        description = {"Read logical blocks into a file or stdout, with nvme read's options: -s start block, "
                + "-c block count (0's based), -z data size, -d file.",
            BlockRangeOptions.COLLISIONS},
        footer = {"", "Example: nvmf4j read --traddr 127.0.0.1 -s 0 -c 7 -z 4096 -d out.bin",
            "(-c is 0's based: 8 blocks of 512 bytes.)"})
public final class ReadCli implements Callable<Integer> {

    @Mixin
    BlockRangeOptions range;

    @Mixin
    OutputOptions output;

    @Mixin
    DeviceConnection device;

    @Override
    public Integer call() throws Exception {
        boolean json = output.textOrJson("read: -o binary: the data itself is raw already (-d FILE, or stdout/stdin)")
                == OutputOptions.Format.JSON;
        if (range.blockCount == null && range.dataSize == null) {
            throw new UsageProblem("read: give -c/--block-count (0's based) or -z/--data-size");
        }
        if (json && range.data == null) {
            throw new UsageProblem("read: -o json prints the summary on stdout; give the data a file with -d/--data");
        }
        return device.run(1, controller -> {
            Namespace ns = range.namespace(controller, device.fabric.endpoint());
            long blocks = range.blocks(ns.blockSize());
            long transfer = blocks * ns.blockSize();
            long bytes = range.dataSize != null ? range.dataSize : transfer;
            if (bytes < transfer) {
                // nvme-cli's words; it then writes only -z bytes of the buffer, as here.
                device.spec.commandLine().getErr().printf("Rounding data size to fit block count (%d bytes)%n", transfer);
            }
            long start = System.nanoTime();
            try (IoBuffer buffer = controller.allocateBuffer(BlockTransfer.bufferBytes(ns))) {
                if (range.data != null) {
                    readToFile(ns, buffer, blocks, bytes);
                } else {
                    // closed (and padded to -z) only once every command succeeded: a failed command's data,
                    // which the controller may well have sent before its error status, is never written
                    OutputStream out = ExactStreams.output(
                            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)), bytes);
                    BlockTransfer.read(ns, buffer, range.startBlock, blocks, out);
                    out.close();
                }
            }
            long nanos = System.nanoTime() - start;
            IoSummary.report(device.spec.commandLine(), "read", ns, range, blocks, bytes, nanos, json);
        });
    }

    /**
     * As nvme-cli's {@code submit_io()}: the file is created (or truncated) and the data written only when the read
     * succeeded; a failed read leaves it empty, whatever data came before the error status.
     */
    private void readToFile(Namespace ns, IoBuffer buffer, long blocks, long bytes) throws Exception {
        try (FileChannel file = FileChannel.open(range.data, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            OutputStream out = ExactStreams.output(new BufferedOutputStream(Channels.newOutputStream(file)), bytes);
            try {
                BlockTransfer.read(ns, buffer, range.startBlock, blocks, out);
                out.flush();
            } catch (Exception | Error e) {
                file.truncate(0);
                throw e;
            }
            out.close();
        }
    }
}
