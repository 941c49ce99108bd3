package io.nvmf4j.cli.rping;

/**
 * The peer went away. Between pings this is how an rping session ends (the server's
 * {@code DISCONNECTED} state in rping.c); in the middle of a ping it is an error.
 */
public final class RpingDisconnectedException extends RpingException {
    private static final long serialVersionUID = 1L;

    public RpingDisconnectedException(String message) {
        super(message);
    }
}
