package io.nvmf4j.cli.host;

import io.nvmf4j.initiator.NvmfConnectException;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.initiator.NvmfStatusException;
import io.nvmf4j.initiator.NvmfTimeoutException;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.verbs.ConnectionRejectedException;
import io.nvmf4j.verbs.VerbsException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns every failure of every subcommand into ONE line on stderr and a non-zero exit code: the NVMe status by
 * name and code ({@code nvmf4j: write failed: LBA_RANGE (0x4080): LBA Out of Range}) or the network cause
 * ({@code nvmf4j: cannot connect to 127.0.0.1:4420: connection refused}). With {@code -v/--verbose} the cause
 * chain and the stack trace follow; without it there is never a stack trace.
 */
public final class FailureReport implements IExecutionExceptionHandler {

    /** Exit code of a command that ran and failed (nvme-cli returns non-zero for any failure). */
    public static final int EXIT_FAILURE = 1;
    /** Exit code of a usage problem, the same as picocli's for a parse error. */
    public static final int EXIT_USAGE = 2;

    @Override
    public int handleExecutionException(Exception ex, CommandLine commandLine, ParseResult fullParseResult) {
        PrintWriter err = commandLine.getErr();
        String verb = commandLine.getCommandName();
        err.println("nvmf4j: " + oneLine(verb, ex));
        if (isVerbose(fullParseResult)) {
            for (Throwable c = ex.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
                err.println("  caused by: " + c);
            }
            ex.printStackTrace(err);
        }
        err.flush();
        return ex instanceof UsageProblem ? EXIT_USAGE : EXIT_FAILURE;
    }

    /** The text after "nvmf4j: " for a failure of {@code verb}. */
    public static String oneLine(String verb, Throwable ex) {
        if (ex instanceof CommandFailure || ex instanceof UsageProblem) {
            return ex.getMessage();
        }
        Optional<NvmfStatusException> status = find(ex, NvmfStatusException.class);
        if (status.isPresent()) {
            return verb + " failed: " + statusText(status.get());
        }
        if (ex instanceof NvmfConnectException c) {
            return "cannot connect: " + connectReason(c, 0);
        }
        if (ex instanceof NvmfTimeoutException) {
            return verb + " failed: timed out: " + stripQueueName(ex.getMessage());
        }
        if (ex instanceof NvmfException) {
            return verb + " failed: " + stripQueueName(ex.getMessage());
        }
        if (ex instanceof NoSuchFileException f) {
            return verb + ": " + f.getFile() + ": no such file";
        }
        if (ex instanceof AccessDeniedException f) {
            return verb + ": " + f.getFile() + ": permission denied";
        }
        if (ex instanceof FileNotFoundException || ex instanceof IOException) {
            return verb + ": " + ex.getMessage();
        }
        // A bug, not a user error: still one line, the class says what kind.
        return verb + " failed: " + ex.getClass().getSimpleName()
                + (ex.getMessage() != null ? ": " + ex.getMessage() : "") + " (run with --verbose for details)";
    }

    /** "LBA_RANGE (0x4080): LBA Out of Range", the status field as Linux prints NVME_SC_* with DNR/More. */
    public static String statusText(NvmfStatusException e) {
        String code = String.format("0x%04x", e.status().toField());
        return e.statusCode().map((StatusCode s) -> s.name() + " (" + code + "): " + s.title())
                .orElse("UNKNOWN (" + code + ")");
    }

    /**
     * Why a connection could not be made, in the words of errno ("connection refused") where the verbs layer says
     * which; {@code connectTimeoutMillis} names the bound for a silent target (0: take the library's words).
     */
    public static String connectReason(NvmfConnectException e, long connectTimeoutMillis) {
        Optional<ConnectionRejectedException> rejected = find(e, ConnectionRejectedException.class);
        String message = e.getMessage() == null ? "" : e.getMessage();
        if (rejected.isPresent()) {
            int at = message.indexOf("rejected the connection: ");
            return "rejected: " + (at >= 0 ? message.substring(at + "rejected the connection: ".length())
                    : rejected.get().getMessage());
        }
        Optional<VerbsException> verbs = find(e, VerbsException.class);
        if (verbs.isPresent()) {
            return switch (verbs.get().code()) {
                case CONNECTION_REFUSED -> "connection refused";
                case CONNECTION_RESET -> "connection reset by peer";
                case TIMED_OUT -> connectTimeoutMillis > 0 ? "no answer within " + connectTimeoutMillis + " ms"
                        : "no answer (timed out)";
                case NO_DEVICE -> verbs.get().getMessage();
                default -> stripQueueName(message);
            };
        }
        return stripQueueName(message);
    }

    /** Drops the library's "nvme-<nqn>-admin: " queue prefix: the user knows which target they named. */
    static String stripQueueName(String message) {
        if (message == null) {
            return "";
        }
        if (message.startsWith("nvme-")) {
            int colon = message.indexOf(": ");
            if (colon > 0) {
                return message.substring(colon + 2);
            }
        }
        return message;
    }

    static boolean isVerbose(ParseResult result) {
        for (ParseResult r = result; r != null; r = r.subcommand()) {
            if (r.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }

    private static <T extends Throwable> Optional<T> find(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return Optional.of(type.cast(c));
            }
        }
        return Optional.empty();
    }
}
