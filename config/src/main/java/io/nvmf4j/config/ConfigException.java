package io.nvmf4j.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A configuration that cannot be used. Carries every problem found, not only the first; {@link #getMessage()} is
 * one problem per line and is meant to be printed to the user as is (no stack trace).
 */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String source;
    // nvmf4j never serializes its exceptions; the list is an immutable copy of records that need not be Serializable
    @SuppressWarnings("serial")
    private final List<ConfigProblem> problems;

    public ConfigException(String source, List<ConfigProblem> problems) {
        super(format(source, problems), null, false, false);
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one problem");
        }
        this.source = source;
        this.problems = List.copyOf(problems);
    }

    /** The name the problems are reported against (a file name, or "command line"). */
    public String source() {
        return source;
    }

    public List<ConfigProblem> problems() {
        return problems;
    }

    private static String format(String source, List<ConfigProblem> problems) {
        return problems.stream().map(p -> p.format(source)).collect(Collectors.joining("\n"));
    }
}
