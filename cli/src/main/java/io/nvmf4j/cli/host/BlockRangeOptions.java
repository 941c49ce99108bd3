package io.nvmf4j.cli.host;

import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The LBA range of {@code read}/{@code write}. nvme-cli's io commands use {@code -s/--start-block} and
 * {@code -c/--block-count}, which collide with {@code -s/--trsvcid} and {@code -c/--reconnect-delay} of the connect
 * options, so here they are long options only; the block count is 1-based (nvme-cli's is 0-based, as NLB).
 */
public final class BlockRangeOptions {

    @Option(names = "--nsid", paramLabel = "NSID", description = "Namespace ID (default: the first active one).")
    Long nsid;

    @Option(names = "--start-block", defaultValue = "0", paramLabel = "LBA",
            description = "First logical block (default: ${DEFAULT-VALUE}).")
    long startBlock;

    @Option(names = "--block-count", paramLabel = "N", description = "Number of logical blocks (1-based).")
    Long blockCount;

    @Option(names = {"-d", "--data"}, paramLabel = "FILE",
            description = "File to write from / read into (default: stdin / stdout).")
    Path data;

    Namespace namespace(NvmeController controller, String endpoint) {
        try {
            if (nsid == null) {
                return controller.firstNamespace();
            }
        } catch (io.nvmf4j.initiator.NvmfException e) {
            throw new CommandFailure("the subsystem at " + endpoint + " has no active namespace", e);
        }
        return controller.namespace(nsid).orElseThrow(() -> new CommandFailure(
                "namespace " + nsid + " is not active on " + endpoint));
    }
}
