package io.nvmf4j.cli.host;

import io.nvmf4j.cli.perf.SizeConverter;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The options of nvme-cli's {@code nvme read} / {@code nvme write} ({@code submit_io()} in its nvme.c) that
 * nvmf4j carries out, with nvme-cli's letters and meanings: {@code -c/--block-count} is 0's based (NLB: 0 is one
 * block), {@code -z/--data-size} the bytes moved between the file and the buffer. The connect options with the
 * same letters ({@code -n -s -c -a -l -t}) are long-only on these commands ({@link LongConnectFlags}).
 */
public final class BlockRangeOptions {

    /** The help line read and write share: which of nvme-cli's letters here mean what the connect options do. */
    static final String COLLISIONS = "Collisions with the connect options, which are long-only here: -n is "
            + "--namespace-id (subsystem: --nqn), -s --start-block (port: --trsvcid), -c --block-count "
            + "(--reconnect-delay), -t --latency (--transport); --traddr, --ctrl-loss-tmo likewise. -v is --verbose "
            + "(nvme-cli: --show-command, not offered).";

    @Option(names = {"-n", "--namespace-id", "--nsid"}, paramLabel = "NSID",
            description = "Namespace ID (default: the first active one).")
    Long nsid;

    @Option(names = {"-s", "--start-block"}, defaultValue = "0", paramLabel = "LBA",
            description = "64-bit address of the first block (default: ${DEFAULT-VALUE}).")
    long startBlock;

    @Option(names = {"-c", "--block-count"}, paramLabel = "NLB",
            description = "Number of blocks, 0's based as in nvme-cli: -c 7 moves 8 blocks.")
    Long blockCount;

    @Option(names = {"-z", "--data-size"}, paramLabel = "BYTES", converter = SizeConverter.class,
            description = "Bytes to read from / write to the file (k/m/g suffixes). nvme-cli requires it; here it "
                    + "defaults to the blocks' size, and without -c it sets the block count to the blocks that "
                    + "hold it (nvme-cli would move one block).")
    Long dataSize;

    @Option(names = {"-d", "--data"}, paramLabel = "FILE",
            description = "File to write from / read into (default: stdin / stdout).")
    Path data;

    @Option(names = {"-t", "--latency"}, description = "Print the command's latency, as nvme-cli does.")
    boolean latency;

    /** The number of blocks to move, from -c (0's based) or -z; null: not given (write: the whole input). */
    Long blocks(long blockSize) {
        if (blockCount != null) {
            if (blockCount < 0) {
                throw new UsageProblem("-c/--block-count " + blockCount + " is negative (it is 0's based: 0 is one "
                        + "block)");
            }
            return blockCount + 1;
        }
        if (dataSize != null) {
            return Math.max(1, (dataSize + blockSize - 1) / blockSize);
        }
        return null;
    }

    Namespace namespace(NvmeController controller, String endpoint) {
        return DeviceNamespaces.of(controller, nsid, endpoint);
    }
}
