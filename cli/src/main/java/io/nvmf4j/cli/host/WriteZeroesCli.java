package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nvmf4j write-zeroes}: Write Zeroes (NVM Command Set 1.0, 3.2.8), as {@code nvme write-zeroes}. */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "write-zeroes", sortOptions = false,
        description = {"Zero a range of logical blocks (like nvme write-zeroes): -s start, -c count (0's based), "
                + "-d deallocate.",
            "Collisions with the connect options, which are long-only here: -n --namespace-id (subsystem: --nqn), "
                + "-s --start-block (port: --trsvcid), -c --block-count (--reconnect-delay)."})
public final class WriteZeroesCli implements Callable<Integer> {

    @Option(names = {"-n", "--namespace-id"}, paramLabel = "NSID",
            description = "Namespace (default: the first active one).")
    Long nsid;

    @Option(names = {"-s", "--start-block"}, defaultValue = "0", paramLabel = "LBA",
            description = "First block (default: ${DEFAULT-VALUE}).")
    long startBlock;

    @Option(names = {"-c", "--block-count"}, defaultValue = "0", paramLabel = "NLB",
            description = "Number of blocks, 0's based: -c 7 zeroes 8 blocks (default: ${DEFAULT-VALUE}).")
    long blockCount;

    @Option(names = {"-d", "--deac"}, description = "Deallocate the blocks too (DEAC).")
    boolean deac;

    @Option(names = {"-v", "--verbose"}, description = "On failure, print the whole cause chain and stack trace.")
    boolean verbose;

    @Mixin
    DeviceConnection device;

    @Override
    public Integer call() throws Exception {
        if (blockCount < 0 || blockCount > 0xFFFF) {
            throw new UsageProblem("write-zeroes: -c/--block-count " + blockCount + " outside 0..65535 (0's based)");
        }
        return device.run(1, controller -> {
            DeviceNamespaces.of(controller, nsid, device.fabric.endpoint()).writeZeroes(startBlock, blockCount + 1, deac);
            device.say("NVME Write Zeroes Success");
        });
    }
}
