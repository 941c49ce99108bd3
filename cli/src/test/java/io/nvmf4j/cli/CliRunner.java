package io.nvmf4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs {@code nvmf4j ARGS} in this JVM the way {@code Nvmf4j.main} does, capturing stdout, stderr and the exit. */
public final class CliRunner {

    public record Result(int exitCode, String out, String err) {
    }

    private CliRunner() {
    }

    /** The whole tree, as {@code nvmf4j help} builds it. */
    public static CommandLine commandLine() {
        return Nvmf4j.commandLine();
    }

    /**
     * As {@link #run}, but stdout is buffered and flushed only by the command, like picocli's default writer on
     * System.out: what the command does not flush before it fails is lost, as it would be for a user.
     */
    public static Result runBuffered(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Nvmf4j.commandLine(args);
        PrintWriter buffered = new PrintWriter(new java.io.BufferedWriter(out, 1 << 16), false);
        cl.setOut(buffered);
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    public static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Nvmf4j.commandLine(args);   // as main builds it: only the subcommand named
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }
}
