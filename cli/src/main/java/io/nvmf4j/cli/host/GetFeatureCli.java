package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.nvmecli.FeatureFormat;
import io.nvmf4j.cli.host.nvmecli.HexDump;
import io.nvmf4j.cli.host.nvmecli.JsonC;
import io.nvmf4j.initiator.FeatureResult;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfStatusException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nvmf4j get-feature}: Get Features (NVMe Base 2.0, 5.15) as nvme-cli 2.3's {@code nvme get-feature}
 * ({@code get_feature_ids()} / {@code get_feature_id_changed()} / {@code get_feature_id_print()} in nvme.c): one
 * feature with {@code -f}, every feature 00h..FFh without it (those the controller answers Invalid Field for are
 * skipped silently), SEL 8 compares current with default and prints what differs. The namespace defaults to
 * FFFFFFFFh, what nvme-cli sends on a controller device ({@code nvme_get_nsid()} fails with ENOTTY there).
 */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "get-feature", sortOptions = false,
        description = {"Read a feature's value (like nvme get-feature): -f 7 prints "
                + "'get-feature:0x07 (Number of Queues), Current value:0x001f001f'; -H decodes its fields; "
                + "without -f, every feature the controller implements.",
            "Collisions with the connect options, which are long-only here: -n --namespace-id (subsystem: --nqn), "
                + "-s --sel (port: --trsvcid), -c --cdw11 (--reconnect-delay), -l --data-len (--ctrl-loss-tmo)."},
        footer = {"", "Example: nvmf4j get-feature --traddr 127.0.0.1 -f 0xf -H"})
public final class GetFeatureCli implements Callable<Integer> {

    @Option(names = {"-f", "--feature-id"}, paramLabel = "FID", converter = UnsignedConverter.class,
            description = "Feature identifier (0: all).")
    long featureId;

    @Option(names = {"-n", "--namespace-id"}, paramLabel = "NSID", converter = UnsignedConverter.class,
            description = "Namespace (default: 0xffffffff, as nvme-cli on a controller).")
    long namespaceId;

    @Option(names = {"-s", "--sel"}, paramLabel = "SEL",
            description = "[0-3,8]: current/default/saved/supported/changed.")
    int sel;

    @Option(names = {"-l", "--data-len"}, paramLabel = "BYTES", converter = UnsignedConverter.class,
            description = "Data buffer length (default: the feature's, as libnvme).")
    long dataLen;

    @Option(names = {"-b", "--raw-binary"}, description = "Show the feature's data in binary format.")
    boolean rawBinary;

    @Option(names = {"-c", "--cdw11"}, paramLabel = "DW11", converter = UnsignedConverter.class,
            description = "Feature specific dword 11.")
    long cdw11;

    @Option(names = {"-U", "--uuid-index"}, paramLabel = "IDX", description = "UUID index (only 0 here).")
    int uuidIndex;

    @Option(names = {"-H", "--human-readable"}, description = "Show the feature in readable format.")
    boolean humanReadable;

    @Mixin
    OutputOptions output;

    @Mixin
    DeviceConnection device;

    /** One answer: a feature with its value and data, as get_feature_id() returns it. */
    record Answer(int fid, FeatureResult result, byte[] data) {
    }

    @Override
    public Integer call() throws Exception {
        OutputOptions.Format format = output.format();
        if (featureId > 0xff) {
            throw new UsageProblem("get-feature: -f/--feature-id " + featureId + " outside 0..255");
        }
        if (sel > 8 || sel < 0) {
            throw new UsageProblem("invalid 'select' param:" + sel);
        }
        if (sel > 3 && sel != 8) {
            throw new UsageProblem("invalid 'select' param:" + sel + " (0-3 or 8)");
        }
        if (uuidIndex != 0) {
            throw new UsageProblem("get-feature: -U/--uuid-index is not supported (NVMe-oF controllers list no UUIDs)");
        }
        if (dataLen > 4096) {
            throw new UsageProblem("get-feature: -l/--data-len " + dataLen + " exceeds 4096");
        }
        boolean raw = rawBinary || format == OutputOptions.Format.BINARY;
        long nsid = namespaceId == 0 ? 0xFFFF_FFFFL : namespaceId;
        PrintWriter out = device.spec.commandLine().getOut();
        Map<String, Object> json = JsonC.object();
        try {
            device.run(0, controller -> walk(controller, out, json, nsid, raw, format));
        } finally {
            out.flush(); // what was printed before a failure stays printed, as nvme-cli's stdout
        }
        if (format == OutputOptions.Format.JSON) {
            out.print(JsonC.print(json));
        }
        out.flush();
        return 0;
    }

    /**
     * get_feature_ids(): FID {@code -f}, or 00h..FFh. Invalid Field skips a feature and any other error ends the
     * walk. The status is compared without its DNR and More bits, as later nvme-cli does ({@code filter_out_flags()});
     * nvme-cli 2.3 compared them too, so against a controller that sets DNR (nvmet) its walk ends at FID 00h.
     */
    private void walk(NvmeController controller, PrintWriter out, Map<String, Object> json, long nsid, boolean raw,
            OutputOptions.Format format) throws Exception {
        int first = (int) featureId;
        int last = featureId != 0 ? first : 0xff;
        int count = 0;
        FeatureResult lastError = null;
        int errorFid = first;
        for (int fid = first; fid <= last; fid++) {
            count++;
            Answer current = get(controller, fid, nsid, sel == 8 ? 0 : sel);
            if (!current.result().isSuccess()) {
                lastError = current.result();
                errorFid = fid;
                if (!current.result().isUnsupported()) {
                    break; // nvme-cli stops at the first error other than Invalid Field
                }
                continue;
            }
            lastError = null;
            if (sel == 8) {
                Answer dflt = get(controller, fid, nsid, 1);
                // nvme-cli prints a feature when the default cannot be read, differs, or (its strcmp() test)
                // when both data buffers read as equal C strings
                if (dflt.result().isSuccess() && dflt.result().dw0() == current.result().dw0()
                        && !(current.data() != null && dflt.data() != null
                        && cString(current.data()).equals(cString(dflt.data())))) {
                    continue;
                }
            }
            print(out, json, current, sel, raw, format);
        }
        if (lastError != null && !lastError.isSuccess() && (count == 1 || !lastError.isUnsupported())) {
            throw new NvmfStatusException(String.format("Get Features %02xh", errorFid), lastError.status(), false);
        }
    }

    private Answer get(NvmeController controller, int fid, long nsid, int select) throws Exception {
        int length = dataLen != 0 ? (int) dataLen : FeatureFormat.dataLength(fid, (int) cdw11);
        if (fid == 0x81 && (cdw11 & 1) != 0) {
            length = 16; // Extended Host Identifier
        }
        if (select == 3) {
            length = 0;
        }
        MemorySegment data = length > 0 ? MemorySegment.ofArray(new byte[length]) : null;
        FeatureResult result = controller.getFeatures(fid, nsid, select, (int) cdw11, data);
        return new Answer(fid, result, data == null ? null : data.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    /** get_feature_id_print() in text or binary; json_feature_show()'s object when JSON is asked for. */
    private void print(PrintWriter out, Map<String, Object> json, Answer a, int select, boolean raw,
            OutputOptions.Format format) throws Exception {
        int dw0 = a.result().dw0();
        if (format == OutputOptions.Format.JSON) {
            Map<String, Object> feature = JsonC.object();
            feature.put("name", FeatureFormat.name(a.fid()));
            feature.put(FeatureFormat.select(select), FeatureFormat.alternateHex(dw0 != 0 ? 10 : 8,
                    Integer.toUnsignedLong(dw0)));
            json.put("feature: " + FeatureFormat.alternateHex(a.fid() != 0 ? 4 : 2, a.fid()), List.of(feature));
            if (select == 3) {
                List<Object> caps = new ArrayList<>();
                if ((dw0 & 1) != 0) {
                    caps.add("saveable");
                }
                if ((dw0 & 2) != 0) {
                    caps.add("per-namespace");
                }
                if ((dw0 & 4) != 0) {
                    caps.add("changeable");
                }
                json.put("Feature: " + FeatureFormat.alternateHex(a.fid() != 0 ? 4 : 2, a.fid()) + ": select", caps);
            }
            return;
        }
        if (raw && a.data() != null) {
            out.flush();
            RawOutput.write(MemorySegment.ofArray(a.data()));
            return;
        }
        out.println(FeatureFormat.header(a.fid(), select, dw0));
        if (select == 3) {
            FeatureFormat.selectResult(dw0).forEach(out::println);
        } else if (humanReadable) {
            FeatureFormat.fields(a.fid(), dw0, a.data()).forEach(out::println);
        } else if (a.data() != null) {
            HexDump.print(out, MemorySegment.ofArray(a.data()), a.data().length);
        }
    }

    private static String cString(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1);
    }
}
