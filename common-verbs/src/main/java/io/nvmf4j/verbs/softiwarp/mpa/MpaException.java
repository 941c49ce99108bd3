package io.nvmf4j.verbs.softiwarp.mpa;

/** A malformed or unacceptable MPA request/reply frame (RFC 5044 section 7.1). */
public final class MpaException extends Exception {
    private static final long serialVersionUID = 1L;

    public MpaException(String message) {
        super(message);
    }
}
