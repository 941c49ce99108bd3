package io.nvmf4j.initiator;

/**
 * The connection to the controller is gone and could not be re-established within ctrl-loss-tmo, or the controller
 * was closed: queued and new I/O fail with this.
 */
public class ControllerLostException extends NvmfException {
    private static final long serialVersionUID = 1L;

    public ControllerLostException(String message) {
        super(message);
    }

    public ControllerLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
