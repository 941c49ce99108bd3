package io.nvmf4j.verbs;

/** The requested provider or device is not usable here; the message is one sentence saying why. */
public class ProviderUnavailableException extends VerbsException {
    private static final long serialVersionUID = 1L;

    public ProviderUnavailableException(String reason) {
        super(VerbsErrorCode.NO_DEVICE, reason);
    }
}
