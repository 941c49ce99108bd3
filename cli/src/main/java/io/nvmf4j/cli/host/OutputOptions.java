package io.nvmf4j.cli.host;

import picocli.CommandLine.Option;

/** {@code --json} and {@code -v/--verbose}, shared by every host command. */
public final class OutputOptions {

    @Option(names = "--json", description = "Print the result as JSON on stdout.")
    public boolean json;

    /** Read by {@link FailureReport} through the parse result, so every command gets the same behaviour. */
    @Option(names = {"-v", "--verbose"}, description = "On failure, print the whole cause chain and stack trace.")
    public boolean verbose;
}
