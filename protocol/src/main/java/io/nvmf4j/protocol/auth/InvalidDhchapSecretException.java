package io.nvmf4j.protocol.auth;

/**
 * A DH-HMAC-CHAP secret could not be read or made: the message names what is wrong (prefix, hash identifier,
 * base64, length, CRC) and never contains the secret itself, so it may be logged and shown to a user.
 */
public final class InvalidDhchapSecretException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidDhchapSecretException(String message) {
        super(message);
    }
}
