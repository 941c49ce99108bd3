package io.nvmf4j.cli.rping;

import java.io.IOException;

/** An rping exchange failed: a protocol violation by the peer, an error completion or a timeout. */
public class RpingException extends IOException {
    private static final long serialVersionUID = 1L;

    public RpingException(String message) {
        super(message);
    }

    public RpingException(String message, Throwable cause) {
        super(message, cause);
    }
}
