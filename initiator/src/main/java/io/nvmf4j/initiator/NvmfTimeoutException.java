package io.nvmf4j.initiator;

/** A command got no response within its timeout (the controller then goes through error recovery). */
public class NvmfTimeoutException extends NvmfException {
    private static final long serialVersionUID = 1L;

    public NvmfTimeoutException(String message) {
        super(message);
    }
}
