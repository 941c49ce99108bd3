package io.nvmf4j.cli.perf;

import io.nvmf4j.cli.host.UsageProblem;
import picocli.CommandLine.Option;

/**
 * The output options of {@code perf}: {@code -o} is the I/O size there (SPDK perf, and fio's {@code bs} is
 * {@code -o} in SPDK), so the format has its long name only, {@code --output-format}, as fio spells it.
 */
public final class PerfOutputOptions {

    /** normal: the table; json: nvmf4j's document; fio-json: fio's {@code --output-format=json} shape. */
    public enum Format { NORMAL, JSON, FIO_JSON }

    @Option(names = "--output-format", paramLabel = "FMT", defaultValue = "normal",
            description = "normal, json, or fio-json (fio's --output-format=json shape) (default: ${DEFAULT-VALUE}).")
    String outputFormat = "normal";

    @Option(names = "--json", description = "The same as --output-format json.")
    boolean json;

    @Option(names = {"-v", "--verbose"}, description = "On failure, print the whole cause chain and stack trace.")
    public boolean verbose;

    public Format format() {
        if (json) {
            return Format.JSON;
        }
        return switch (outputFormat) {
            case "normal" -> Format.NORMAL;
            case "json" -> Format.JSON;
            case "fio-json" -> Format.FIO_JSON;
            default -> throw new UsageProblem("perf: invalid output format '" + outputFormat
                    + "': use normal, json or fio-json");
        };
    }
}
