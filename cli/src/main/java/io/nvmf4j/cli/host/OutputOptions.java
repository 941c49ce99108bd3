package io.nvmf4j.cli.host;

import picocli.CommandLine.Option;

/**
 * nvme-cli's {@code -o/--output-format normal|json|binary}, nvmf4j's earlier {@code --json} (the same as
 * {@code -o json}) and {@code -v/--verbose}, shared by the host commands.
 */
public final class OutputOptions {

    /** The formats of nvme-cli's {@code validate_output_format()}. */
    public enum Format { NORMAL, JSON, BINARY }

    @Option(names = {"-o", "--output-format"}, paramLabel = "FMT", defaultValue = "normal",
            description = "Output format: normal, json or binary (as nvme-cli; default: ${DEFAULT-VALUE}).")
    String outputFormat = "normal";

    @Option(names = "--json", description = "The same as -o json.")
    public boolean json;

    /** Read by {@link FailureReport} through the parse result, so every command gets the same behaviour. */
    @Option(names = {"-v", "--verbose"}, description = "On failure, print the whole cause chain and stack trace.")
    public boolean verbose;

    /** The format asked for; a name nvme-cli would reject is a usage problem. */
    public Format format() {
        if (json) {
            return Format.JSON;
        }
        return switch (outputFormat) {
            case "normal" -> Format.NORMAL;
            case "json" -> Format.JSON;
            case "binary" -> Format.BINARY;
            default -> throw new UsageProblem("invalid output format '" + outputFormat
                    + "': use normal, json or binary");
        };
    }

    /** The format asked for, binary when {@code rawBinary} ({@code -b/--raw-binary}, nvme-cli's alias of -o binary). */
    public Format format(boolean rawBinary) {
        return rawBinary ? Format.BINARY : format();
    }

    /**
     * The format asked for, for a command that has no binary form (nvme-cli's words: {@code why} is the command's
     * message, e.g. {@code "discover: -o binary is not supported; use normal or json"}).
     */
    public Format textOrJson(String why) {
        Format f = format();
        if (f == Format.BINARY) {
            throw new UsageProblem(why);
        }
        return f;
    }

    /** True for {@code -o json} or {@code --json}. */
    public boolean isJson() {
        return format() == Format.JSON;
    }
}
