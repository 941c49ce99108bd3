package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.protocol.io.DatasetManagementCommand;
import io.nvmf4j.protocol.io.DsmRange;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nvmf4j dsm}: Dataset Management (NVM Command Set 1.0, 3.2.3) as {@code nvme dsm}: one command carrying
 * every range given, range i made of the i-th entries of {@code -a/--ctx-attrs} (context attributes),
 * {@code -b/--blocks} (length in blocks, NOT 0's based: the range's length field) and {@code -s/--slbs} (start
 * LBA), missing entries 0 (nvme-cli's {@code nvme_init_dsm_range()} over zeroed arrays); the attributes are
 * {@code -c/--cdw11} when given, else {@code -d/--ad} (bit 2), {@code -w/--idw} (bit 1) and {@code -r/--idr} (bit 0).
 */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "dsm", sortOptions = false,
        description = {"Dataset Management (like nvme dsm): -s 0,1024 -b 8,8 -d deallocates two ranges; "
                + "-w/--idw and -r/--idr send the integral-dataset hints, -a/--ctx-attrs each range's context "
                + "attributes, -c/--cdw11 all the attributes at once.",
            "Collisions with the connect options, which are long-only here: -n --namespace-id (subsystem: --nqn), "
                + "-s --slbs (port: --trsvcid), -a --ctx-attrs (address: --traddr), -c --cdw11 "
                + "(--reconnect-delay)."})
public final class DsmCli implements Callable<Integer> {

    @Option(names = {"-n", "--namespace-id"}, paramLabel = "NSID",
            description = "Namespace (default: the first active one).")
    Long nsid;

    @Option(names = {"-a", "--ctx-attrs"}, split = ",", paramLabel = "ATTR",
            converter = UnsignedConverter.class, description = "Comma-separated context attributes, one per range.")
    List<Long> ctxAttrs = List.of();

    @Option(names = {"-b", "--blocks"}, split = ",", paramLabel = "N", converter = UnsignedConverter.class,
            description = "Comma-separated range lengths in blocks.")
    List<Long> blocks = List.of();

    @Option(names = {"-s", "--slbs"}, split = ",", paramLabel = "LBA", converter = Unsigned64Converter.class,
            description = "Comma-separated start LBAs.")
    List<Long> slbs = List.of();

    @Option(names = {"-d", "--ad"}, description = "Attribute Deallocate.")
    boolean ad;

    @Option(names = {"-w", "--idw"}, description = "Attribute Integral Dataset for Write.")
    boolean idw;

    @Option(names = {"-r", "--idr"}, description = "Attribute Integral Dataset for Read.")
    boolean idr;

    @Option(names = {"-c", "--cdw11"}, paramLabel = "DW11", converter = UnsignedConverter.class,
            description = "All the command DWORD 11 attributes; used instead of -d/-w/-r when not 0.")
    long cdw11;

    @Option(names = {"-v", "--verbose"}, description = "On failure, print the whole cause chain and stack trace.")
    boolean verbose;

    @Mixin
    DeviceConnection device;

    @Override
    public Integer call() throws Exception {
        int ranges = Math.max(ctxAttrs.size(), Math.max(slbs.size(), blocks.size()));
        if (ranges == 0 || ranges > DatasetManagementCommand.MAX_RANGES) {
            throw new UsageProblem("dsm: No range definition provided (give -s/--slbs and -b/--blocks, 1..256)");
        }
        List<DsmRange> list = ranges(ranges);
        int attributes = attributes();
        return device.run(1, controller -> {
            DeviceNamespaces.of(controller, nsid, device.fabric.endpoint()).datasetManagement(list, attributes);
            device.say("NVMe DSM: success");
        });
    }

    /** CDW11 as nvme-cli builds it: {@code --cdw11} if not 0, else {@code ad << 2 | idw << 1 | idr}. */
    int attributes() {
        if (cdw11 != 0) {
            return (int) cdw11;
        }
        return (ad ? DatasetManagementCommand.ATTR_AD : 0) | (idw ? DatasetManagementCommand.ATTR_IDW : 0)
                | (idr ? DatasetManagementCommand.ATTR_IDR : 0);
    }

    /** Range i from the i-th entries, 0 where a list is shorter (nvme_init_dsm_range()). */
    List<DsmRange> ranges(int count) {
        List<DsmRange> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long attr = i < ctxAttrs.size() ? ctxAttrs.get(i) : 0;
            long nlb = i < blocks.size() ? blocks.get(i) : 0;
            long slba = i < slbs.size() ? slbs.get(i) : 0;
            if (nlb < 0 || nlb > 0xFFFF_FFFFL || attr > 0xFFFF_FFFFL) {
                throw new UsageProblem("dsm: range " + i + ": blocks and context attributes are 32-bit values");
            }
            out.add(new DsmRange((int) attr, nlb, slba));
        }
        return out;
    }
}
