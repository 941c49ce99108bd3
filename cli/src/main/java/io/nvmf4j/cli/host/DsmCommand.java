package io.nvmf4j.cli.host;

import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nvmf4j dsm}: Dataset Management with the Deallocate attribute (NVM Command Set 1.0, 3.2.3), as
 * {@code nvme dsm --ad}: comma-separated start LBAs ({@code -s/--slbs}) and lengths ({@code -b/--blocks}, in
 * blocks, NOT 0's based: the DSM range's length field), one range per pair.
 */
@Command(mixinStandardHelpOptions = true, versionProvider = io.nvmf4j.cli.VersionProvider.class,
        name = "dsm", sortOptions = false,
        description = {"Deallocate ranges (like nvme dsm --ad): -s 0,1024 -b 8,8 -d.",
            "Only the deallocate attribute (-d/--ad) is carried out; -w/--idw, -r/--idr and -a/--ctx-attrs are "
                + "not (the initiator library sends Deallocate only).",
            "Collisions with the connect options, which are long-only here: -n --namespace-id (subsystem: --nqn), "
                + "-s --slbs (port: --trsvcid)."})
public final class DsmCommand implements Callable<Integer> {

    @Option(names = {"-n", "--namespace-id"}, paramLabel = "NSID",
            description = "Namespace (default: the first active one).")
    Long nsid;

    @Option(names = {"-s", "--slbs"}, split = ",", paramLabel = "LBA", description = "Comma-separated start LBAs.")
    List<Long> slbs = List.of();

    @Option(names = {"-b", "--blocks"}, split = ",", paramLabel = "N",
            description = "Comma-separated range lengths in blocks.")
    List<Long> blocks = List.of();

    @Option(names = {"-d", "--ad"}, description = "Attribute Deallocate (required here).")
    boolean ad;

    @Option(names = {"-v", "--verbose"}, description = "On failure, print the whole cause chain and stack trace.")
    boolean verbose;

    @Mixin
    LongConnectFlags fabric;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        CommandLogging.configure(verbose);
        int ranges = Math.max(slbs.size(), blocks.size());
        if (ranges == 0 || ranges > 256) {
            throw new UsageProblem("dsm: No range definition provided (give -s/--slbs and -b/--blocks, 1..256)");
        }
        if (!ad) {
            throw new UsageProblem("dsm: only the deallocate attribute is supported: add -d/--ad");
        }
        try (NvmeController controller = Connections.connect(fabric, b -> b.ioQueues(1))) {
            Namespace ns = DeviceNamespaces.of(controller, nsid, fabric.endpoint());
            // nvme-cli fills missing entries of the shorter list with 0 (nvme_init_dsm_range over zeroed arrays).
            for (int i = 0; i < ranges; i++) {
                long slba = i < slbs.size() ? slbs.get(i) : 0;
                long nlb = i < blocks.size() ? blocks.get(i) : 0;
                if (nlb > 0) {
                    ns.deallocate(slba, nlb);
                }
            }
            spec.commandLine().getOut().println("NVMe DSM: success");
            spec.commandLine().getOut().flush();
        }
        return 0;
    }
}
