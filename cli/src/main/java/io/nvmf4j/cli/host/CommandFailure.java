package io.nvmf4j.cli.host;

/**
 * A command could not do its job; the message is the one line the user sees after "nvmf4j: " (for example
 * "cannot connect to 127.0.0.1:4420: connection refused"). The cause, if any, is shown with {@code --verbose}.
 */
public final class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CommandFailure(String message) {
        super(message);
    }

    public CommandFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
