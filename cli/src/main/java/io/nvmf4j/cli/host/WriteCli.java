package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.Namespace;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code nvmf4j write}: a file or stdin onto a remote namespace, as {@code nvme write}: {@code -c} blocks
 * (0's based) from {@code -s}, {@code -z} bytes taken from the input and the rest of the blocks zero. Without
 * {@code -c} and {@code -z} the whole input is written, its last partial block padded with zeros (nvmf4j's).
 */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "write", sortOptions = false,
        description = {"Write a file or stdin to logical blocks, with nvme write's options: -s start block, "
                + "-c block count (0's based), -z data size, -d file. Without -c and -z: the whole input.",
            BlockRangeOptions.COLLISIONS},
        footer = {"", "Example: nvmf4j write --traddr 127.0.0.1 -s 0 -c 7 -z 4096 -d in.bin",
            "(-c is 0's based: 8 blocks of 512 bytes.)"})
public final class WriteCli implements Callable<Integer> {

    @Mixin
    BlockRangeOptions range;

    @Mixin
    OutputOptions output;

    @Mixin
    DeviceConnection device;

    @Override
    public Integer call() throws Exception {
        boolean json = output.textOrJson("write: -o binary: the data itself is raw already (-d FILE, or stdout/stdin)")
                == OutputOptions.Format.JSON;
        if (range.data != null && !Files.isReadable(range.data)) {
            throw new CommandFailure("write: " + range.data + ": no such file or not readable");
        }
        return device.run(1, controller -> {
            Namespace ns = range.namespace(controller, device.fabric.endpoint());
            Long blocks = range.blocks(ns.blockSize());
            long start = System.nanoTime();
            long written;
            try (IoBuffer buffer = controller.allocateBuffer(BlockTransfer.bufferBytes(ns));
                 InputStream raw = range.data != null ? new BufferedInputStream(Files.newInputStream(range.data))
                         : System.in) {
                InputStream in = raw;
                if (blocks != null) {
                    long transfer = blocks * ns.blockSize();
                    long take = range.dataSize != null ? Math.min(range.dataSize, transfer) : transfer;
                    if (range.dataSize != null && range.dataSize < transfer) {
                        device.spec.commandLine().getErr().printf("Rounding data size to fit block count (%d bytes)%n",
                                transfer);
                    }
                    // nvme-cli reads -z bytes into a zeroed buffer of the blocks' size: a short input is zeros.
                    in = ExactStreams.input(raw, take, transfer);
                }
                written = BlockTransfer.write(ns, buffer, range.startBlock, blocks, in);
            }
            long nanos = System.nanoTime() - start;
            long bytes = range.dataSize != null ? range.dataSize : written * ns.blockSize();
            IoSummary.report(device.spec.commandLine(), "write", ns, range, written, bytes, nanos, json);
        });
    }
}
