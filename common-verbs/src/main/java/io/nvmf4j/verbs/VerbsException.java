package io.nvmf4j.verbs;

import java.io.IOException;

/**
 * A verbs call failed immediately (the Java form of a verbs function returning an errno). Failures of an
 * operation that was accepted are reported later as a {@link WorkCompletion} with a non-success
 * {@link WcStatus}, never as an exception.
 */
public class VerbsException extends IOException {
    private static final long serialVersionUID = 1L;

    private final VerbsErrorCode code;

    public VerbsException(VerbsErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public VerbsException(VerbsErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** The reason, with its errno equivalent. */
    public VerbsErrorCode code() {
        return code;
    }
}
