package io.nvmf4j.cli.host;

/** A value the user gave is not usable; the message says which and why (exit code 2, like a parse error). */
public final class UsageProblem extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageProblem(String message) {
        super(message);
    }
}
