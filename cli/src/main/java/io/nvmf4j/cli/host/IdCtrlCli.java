package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.nvmecli.IdCtrlFormat;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nvmf4j id-ctrl}: Identify Controller, every field, as {@code nvme id-ctrl} prints it. */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "id-ctrl", sortOptions = false,
        description = {"Connect and print Identify Controller like nvme id-ctrl: -o json is nvme-cli 2.x's flat "
                + "object (jq .sn works), -o binary the raw 4096 bytes.",
            "Connect options are long-only here, as on every nvme-cli device command (nvme-cli gives their "
                + "letters to its own options); see 'nvmf4j discover --help' for the short forms."},
        footer = {"", "Example: nvmf4j id-ctrl --traddr 127.0.0.1 --trsvcid 4420 -o json | jq -r .sn"})
public final class IdCtrlCli implements Callable<Integer> {

    @Option(names = {"-b", "--raw-binary"}, description = "The raw structure on stdout (the same as -o binary).")
    boolean rawBinary;

    @Option(names = {"-H", "--human-readable"},
            description = "Decode the bit fields under their line (cmic, oacs, oncs, vwc, sgls ...), as nvme-cli.")
    boolean human;

    @Mixin
    OutputOptions output;

    @Mixin
    DeviceConnection device;

    @Override
    public Integer call() throws Exception {
        OutputOptions.Format format = output.format(rawBinary);
        // Admin queue only: Identify moves 4 KiB on it; no I/O queue is worth its set-up here.
        return device.run(0, controller -> device.print(format, controller.identify().segment(),
                IdCtrlFormat::json, (out, data) -> IdCtrlFormat.text(out, data, human)));
    }
}
