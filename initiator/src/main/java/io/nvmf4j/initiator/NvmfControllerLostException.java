package io.nvmf4j.initiator;

/**
 * The connection to the controller is gone and could not be re-established within ctrl-loss-tmo, or the controller
 * was closed: queued and new I/O fail with this.
 */
public class NvmfControllerLostException extends NvmfException {
    private static final long serialVersionUID = 1L;

    public NvmfControllerLostException(String message) {
        super(message);
    }

    public NvmfControllerLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
